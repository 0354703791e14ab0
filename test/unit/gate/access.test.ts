import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AccessRule, accessPattern } from "../../../shared/config/schema.ts";
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

describe("matchPattern: `*@**.domain` (the domain and every subdomain)", () => {
  it.each([
    ["*@**.example.com", "x@example.com", true],
    ["*@**.example.com", "x@sub.example.com", true],
    ["*@**.example.com", "x@a.b.sub.example.com", true],
    ["*@**.example.com", "@example.com", true],
    ["*@**.example.com", '"a@b"@mail.example.com', true],
    ["*@**.example.com", '"a@b"@example.com', true],
    // label boundary: a look-alike suffix or the domain as a prefix is someone else's domain.
    ["*@**.example.com", "x@evil-example.com", false],
    ["*@**.example.com", "x@evilexample.com", false],
    ["*@**.example.com", "x@example.com.evil", false],
    ["*@**.example.com", "x@example.co", false],
    ["*@**.example.com", "x@xample.com", false],
    ["*@**.example.com", "example.com", false],
    ["*@**.example.com", "x.example.com", false],
    ["*@**.example.com", 'x@example.com"@evil.org', false],
    ["*@**.zip", "x@files.zip", true],
    ["*@**.zip", "x@zip.org", false],
  ])("%s vs %s -> %s", (pattern, key, expected) => {
    expect(matchPattern(pattern, key)).toBe(expected);
  });

  it.each([["*@**."], ["*@**.*.org"], ["*@**.a@b.org"]])(
    "throws on %j rather than silently never matching a deny rule",
    (pattern) => {
      expect(() => matchPattern(pattern, "a@b.org")).toThrow(/needs a plain domain/);
    },
  );

  it("covers exactly the domain and the names under it, for any labels (property)", () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
    const domain = fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join("."));
    const local = fc.stringMatching(/^[a-z0-9.+_-]{0,10}$/);
    fc.assert(
      fc.property(local, domain, fc.array(label, { maxLength: 3 }), label, (l, d, subs, other) => {
        const pattern = `*@**.${d}`;
        expect(matchPattern(pattern, `${l}@${[...subs, d].join(".")}`)).toBe(true);
        // whatever glues onto the first label without a dot is another domain; so is anything after it.
        expect(matchPattern(pattern, `${l}@${other}${d}`)).toBe(false);
        expect(matchPattern(pattern, `${l}@${other}-${d}`)).toBe(false);
        expect(matchPattern(pattern, `${l}@${d}.${other}`)).toBe(false);
        // it covers all that `*@domain` covers.
        expect(matchPattern(pattern, `${l}@${d}`)).toBe(matchPattern(`*@${d}`, `${l}@${d}`));
      }),
    );
  });
});

describe("accessPattern (schema)", () => {
  it.each([
    ["ceo@thescoop.com"],
    ["*@thescoop.com"],
    ["*"],
    ["ceo@*"],
    ["*@**.example.com"],
    ["*@**.attacker.example"],
    ["*@**.zip"],
    ["*@**.xn--bcher-kva.example"],
  ])("accepts %j", (pattern) => {
    expect(accessPattern.safeParse(pattern).success).toBe(true);
  });

  it.each([
    ["*@*.example.com", "one `*`"],
    ["a*b*@x.org", "one `*`"],
    ["**@example.com", "one `*`"],
    ["x@**.example.com", "one `*`"],
    ["*@sub.**.example.com", "one `*`"],
    ["*@**example.com", "one `*`"],
    ["**.example.com", "one `*`"],
    ["*@**.", "followed by a lower-case domain"],
    ["*@**.*.example.com", "followed by a lower-case domain"],
    ["*@**.**.example.com", "followed by a lower-case domain"],
    ["*@**.example.com.", "followed by a lower-case domain"],
    ["*@**..example.com", "followed by a lower-case domain"],
    ["*@**.-example.com", "followed by a lower-case domain"],
    ["*@**.example-.com", "followed by a lower-case domain"],
    ["*@**.ex_ample.com", "followed by a lower-case domain"],
    ["*@**.bücher.example", "followed by a lower-case domain"],
    ["*@**.a@example.com", "followed by a lower-case domain"],
    [`*@**.${"a".repeat(64)}.com`, "followed by a lower-case domain"],
    [`*@**.${Array.from({ length: 64 }, () => "abc").join(".")}`, "followed by a lower-case domain"],
    ["*@**.Example.com", "lower-case"],
    ["*@**.example.com x", "whitespace"],
  ])("refuses %j (%s)", (pattern, message) => {
    const r = accessPattern.safeParse(pattern);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message).join("\n")).toContain(message);
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
  const domain = fc.constantFrom(
    "x.org",
    "y.org",
    "evil.org",
    "mail.evil.org",
    "a.mail.evil.org",
    "notevil.org",
  );
  const key = fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`);
  const pattern = fc.oneof(
    key,
    domain.map((d) => `*@${d}`),
    domain.map((d) => `*@**.${d}`),
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

  it("a `*@**.domain` deny refuses every key at that domain and under it, in either layer", () => {
    fc.assert(
      fc.property(key, layer, layer, fc.boolean(), (k, ceiling, agent, inCeiling) => {
        const denyRule = deny("*@**.evil.org");
        const c = inCeiling ? [...ceiling, denyRule] : ceiling;
        const a = inCeiling ? agent : [...agent, denyRule];
        const domain = k.slice(k.indexOf("@") + 1);
        if (domain === "evil.org" || domain.endsWith(".evil.org"))
          expect(decideAccess(k, c, a).allowed).toBe(false);
        else expect(decideAccess(k, c, a)).toEqual(decideAccess(k, ceiling, agent));
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
