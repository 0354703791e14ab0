import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AccessRule } from "../../../shared/config/schema.ts";
import {
  allowedByAll,
  decideAccess,
  evaluateLayer,
  matchPattern,
  routingKey,
} from "../../../shared/gate/access.ts";

const allow = (pattern: string): AccessRule => ({ pattern, effect: "allow" });
const deny = (pattern: string): AccessRule => ({ pattern, effect: "deny" });

describe("routingKey", () => {
  it.each([
    ["Ceo+finance@Thescoop.com", "ceo@thescoop.com"],
    ["ceo@thescoop.com", "ceo@thescoop.com"],
    ["  A+b+c@X.org ", "a@x.org"],
    // Never an empty local part: a "+" at the start is part of the name, not a tag.
    ["+only@x.org", "+only@x.org"],
    ["no-at-sign+x", "no-at-sign+x"],
    ['"a@b"+t@x.org', '"a@b"@x.org'],
  ])("%s -> %s", (input, key) => {
    expect(routingKey(input)).toBe(key);
  });
});

describe("matchPattern", () => {
  it.each([
    ["ceo@thescoop.com", "ceo@thescoop.com", true],
    ["ceo@thescoop.com", "ceo@thescoop.co", false],
    ["ceo@thescoop.com", "xceo@thescoop.com", false],
    ["*@thescoop.com", "ceo@thescoop.com", true],
    ["*@thescoop.com", "@thescoop.com", true],
    ["*@thescoop.com", "ceo@evil-thescoop.com", false],
    ["*@thescoop.com", "ceo@thescoop.com.evil.org", false],
    ["*.thescoop.com", "a@mail.thescoop.com", true],
    ["ceo@*", "ceo@anything.org", true],
    ["ceo@*", "cfo@anything.org", false],
    ["c*o@x.org", "co@x.org", true],
    ["c*o@x.org", "cxo@x.org", true],
    // prefix and suffix may not overlap: "ab*ba" needs at least 4 characters.
    ["ab*ba", "aba", false],
    ["ab*ba", "abba", true],
    ["*", "anyone@anywhere.org", true],
    ["*", "", true],
    // regex metacharacters are literal: no pattern is compiled into a RegExp.
    ["a.c@x.org", "abc@x.org", false],
    ["(a|b)*@x.org", "(a|b)zz@x.org", true],
  ])("%s vs %s -> %s", (pattern, key, expected) => {
    expect(matchPattern(pattern, key)).toBe(expected);
  });

  it("throws on two wildcards rather than silently never matching a deny rule", () => {
    expect(() => matchPattern("*@*.evil.org", "a@b.evil.org")).toThrow(/more than one/);
  });
});

describe("evaluateLayer", () => {
  it.each<[string, AccessRule[], string, "allow" | "deny"]>([
    ["empty layer admits", [], "a@x.org", "allow"],
    ["deny-only layer admits the rest", [deny("*@evil.org")], "a@x.org", "allow"],
    ["deny-only layer denies a match", [deny("*@evil.org")], "a@evil.org", "deny"],
    ["allow rule makes the layer an allow list", [allow("*@x.org")], "a@y.org", "deny"],
    ["allow match admits", [allow("*@x.org")], "a@x.org", "allow"],
    ["deny beats allow", [allow("*@x.org"), deny("bad@x.org")], "bad@x.org", "deny"],
    ["deny beats allow in any order", [deny("bad@x.org"), allow("*@x.org")], "bad@x.org", "deny"],
    ["deny beats an exact allow", [allow("bad@x.org"), deny("*@x.org")], "bad@x.org", "deny"],
    ["allow list with a deny still denies others", [allow("a@x.org"), deny("*@evil.org")], "b@x.org", "deny"],
  ])("%s", (_name, rules, key, expected) => {
    expect(evaluateLayer(rules, key)).toBe(expected);
  });
});

describe("decideAccess", () => {
  it("an agent with no rules inherits the ceiling", () => {
    expect(decideAccess("a@x.org", [allow("*@x.org")], [])).toEqual({
      allowed: true,
      layer: "ceiling",
      rule: allow("*@x.org"),
    });
    expect(decideAccess("a@y.org", [allow("*@x.org")], [])).toEqual({
      allowed: false,
      layer: "ceiling",
      rule: null,
    });
  });

  it("nothing configured admits, with no deciding rule", () => {
    expect(decideAccess("a@x.org", [], [])).toEqual({ allowed: true, layer: null, rule: null });
  });

  it("agent rules cannot widen the ceiling", () => {
    expect(decideAccess("a@y.org", [allow("*@x.org")], [allow("*@y.org")])).toEqual({
      allowed: false,
      layer: "ceiling",
      rule: null,
    });
    expect(decideAccess("a@evil.org", [deny("*@evil.org")], [allow("a@evil.org")])).toEqual({
      allowed: false,
      layer: "ceiling",
      rule: deny("*@evil.org"),
    });
  });

  it("agent rules narrow the ceiling", () => {
    expect(decideAccess("b@x.org", [allow("*@x.org")], [allow("a@x.org")])).toEqual({
      allowed: false,
      layer: "agent",
      rule: null,
    });
    expect(decideAccess("b@x.org", [], [deny("b@x.org")])).toEqual({
      allowed: false,
      layer: "agent",
      rule: deny("b@x.org"),
    });
    expect(decideAccess("a@x.org", [allow("*@x.org")], [allow("a@x.org")])).toEqual({
      allowed: true,
      layer: "agent",
      rule: allow("a@x.org"),
    });
  });

  it("reports the same deciding rule whatever the order (smallest pattern)", () => {
    const rules = [deny("b*@x.org"), deny("*@x.org"), deny("bad@x.org")];
    for (const order of [rules, [...rules].reverse()]) {
      expect(decideAccess("bad@x.org", order, []).rule).toEqual(deny("*@x.org"));
      expect(decideAccess("bad@x.org", [], order).rule).toEqual(deny("*@x.org"));
    }
    const allows = [allow("b*@x.org"), allow("*@x.org")];
    expect(decideAccess("bad@x.org", [], allows).rule).toEqual(allow("*@x.org"));
    expect(decideAccess("bad@x.org", [], [...allows].reverse()).rule).toEqual(allow("*@x.org"));
  });

  it("matches on the routing key: a tag or capitals do not dodge a deny rule", () => {
    const key = routingKey("Ceo+finance@Thescoop.com");
    expect(decideAccess(key, [deny("ceo@thescoop.com")], []).allowed).toBe(false);
    expect(decideAccess(key, [allow("ceo@thescoop.com")], []).allowed).toBe(true);
  });
});

describe("access algebra (properties)", () => {
  const local = fc.constantFrom("a", "b", "ceo", "x");
  const domain = fc.constantFrom("x.org", "y.org", "evil.org");
  const key = fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`);
  const pattern = fc.oneof(
    key,
    domain.map((d) => `*@${d}`),
    local.map((l) => `${l}@*`),
    fc.constant("*"),
    fc.constant("*.org"),
  );
  const rule = fc.record({ pattern, effect: fc.constantFrom<"allow" | "deny">("allow", "deny") });
  const layer = fc.array(rule, { maxLength: 6 });

  it("adding a layer only narrows", () => {
    fc.assert(
      fc.property(key, layer, layer, layer, (k, ceiling, agent, extra) => {
        const alone = decideAccess(k, ceiling, []).allowed;
        const both = decideAccess(k, ceiling, agent).allowed;
        expect(!both || alone).toBe(true);
        expect(both).toBe(allowedByAll(k, [ceiling, agent]));
        expect(!allowedByAll(k, [ceiling, agent, extra]) || both).toBe(true);
      }),
    );
  });

  it("a deny match always wins, in either layer", () => {
    fc.assert(
      fc.property(key, layer, layer, fc.boolean(), (k, ceiling, agent, inCeiling) => {
        const denyRule = deny(k);
        const c = inCeiling ? [...ceiling, denyRule] : ceiling;
        const a = inCeiling ? agent : [...agent, denyRule];
        expect(decideAccess(k, c, a).allowed).toBe(false);
      }),
    );
  });

  it("the decision never depends on rule order", () => {
    fc.assert(
      fc.property(
        key,
        layer.chain((l) => fc.tuple(fc.constant(l), fc.shuffledSubarray(l, { minLength: l.length }))),
        layer.chain((l) => fc.tuple(fc.constant(l), fc.shuffledSubarray(l, { minLength: l.length }))),
        (k, [c1, c2], [a1, a2]) => {
          expect(decideAccess(k, c2, a2)).toEqual(decideAccess(k, c1, a1));
        },
      ),
    );
  });

  it("a layer holding an allow rule admits only keys an allow rule matches", () => {
    fc.assert(
      fc.property(key, layer, (k, rules) => {
        fc.pre(rules.some((r) => r.effect === "allow"));
        const admitted = evaluateLayer(rules, k) === "allow";
        if (admitted)
          expect(rules.some((r) => r.effect === "allow" && matchPattern(r.pattern, k))).toBe(true);
      }),
    );
  });
});
