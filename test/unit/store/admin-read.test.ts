import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatPath } from "../../../shared/admin/issues.ts";
import { readAccessRules, readAgents, ruleKey } from "../../../shared/admin/read.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

const capture = recordingLogger;

const A = "suzie@shopping.example.net";
const valid = (effect: "allow" | "deny", pattern: string) => ({
  agent: A,
  rule: ruleKey(effect, pattern),
  effect,
  pattern,
});

describe("readAccessRules", () => {
  it("returns valid rules without the storage key", () => {
    expect(readAccessRules([valid("allow", "joe@x.com")], capture())).toEqual([
      { agent: A, pattern: "joe@x.com", effect: "allow" },
    ]);
  });

  it("drops an invalid allow rule with one warning naming table, key and problem", () => {
    const log = capture();
    expect(readAccessRules([{ ...valid("allow", "Joe@x.com") }], log)).toEqual([]);
    expect(log.text({ fields: false })).toHaveLength(1);
    expect(log.text({ fields: false })[0]).toMatch(
      /^warn invalid admin item skipped: table=accessRules agent="suzie@shopping\.example\.net" rule="allow#Joe@x\.com" .*pattern: must be lower-case/,
    );
  });

  it("replaces an invalid deny rule by one deny-all for the agent", () => {
    const log = capture();
    const rules = readAccessRules(
      [valid("deny", "a@b.com"), { agent: A, rule: "deny#**@x", effect: "deny", pattern: "**@x" }],
      log,
    );
    expect(rules).toEqual([
      { agent: A, pattern: "a@b.com", effect: "deny" },
      { agent: A, pattern: "*", effect: "deny", failClosedFor: "deny#**@x" },
    ]);
    expect(log.text({ fields: false })[0]).toMatch(/^error .*refuses every sender/);
  });

  it("ignores a broken rule whose key cannot name any agent", () => {
    const log = capture();
    expect(
      readAccessRules([{ agent: "not an address", rule: "deny#x", effect: "deny", pattern: "x" }], log),
    ).toEqual([]);
    expect(log.text({ fields: false })[0]).toContain("binds nobody");
  });

  // Gates only narrow: whatever is stored, every item that might be a deny still denies (its pattern or `*`).
  it("never loses a possible deny (property)", () => {
    const effect = fc.constantFrom("allow", "deny", "Deny", "", undefined);
    const pattern = fc.constantFrom("joe@x.com", "*@x.com", "Joe@x.com", "**@x", "a b@x", "*", undefined);
    const agent = fc.constantFrom(A, "Suzie@Shopping.example.net", "bob@x.example");
    const rule = fc.constantFrom("allow#", "deny#", "", "x#");
    const raw = fc.record({ agent, effect, pattern, prefix: rule }).map((r) => ({
      agent: r.agent,
      effect: r.effect,
      pattern: r.pattern,
      rule: `${r.prefix}${r.pattern ?? ""}`,
    }));
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 6 }), (raws) => {
        const out = readAccessRules(raws, capture());
        for (const r of raws) {
          const provablyAllow = r.effect === "allow" && r.rule.startsWith("allow#");
          if (provablyAllow) continue;
          const who = r.agent.toLowerCase();
          const covered = out.some(
            (o) => o.agent === who && o.effect === "deny" && (o.pattern === "*" || o.pattern === r.pattern),
          );
          expect(covered).toBe(true);
        }
      }),
    );
  });
});

describe("readAgents", () => {
  it("applies defaults and skips an invalid item", () => {
    const log = capture();
    const agents = readAgents(
      [
        { address: A, name: "S", model: "demo" },
        { address: "x@y.example", name: "" },
      ],
      log,
    );
    expect(agents).toEqual([
      {
        address: A,
        name: "S",
        model: "demo",
        instructions: "",
        acceptAutoSubmitted: false,
        acceptListMail: false,
        acceptBcc: false,
        requireSignedAddressing: false,
        enabled: true,
      },
    ]);
    expect(log.text({ fields: false })).toHaveLength(1);
    expect(log.text({ fields: false })[0]).toContain('table=agents address="x@y.example"');
  });
});

describe("formatPath", () => {
  it("renders zod paths the way an operator reads a JSON document", () => {
    expect(formatPath(["toolkits", 0, "tools", 1])).toBe("toolkits[0].tools[1]");
    expect(formatPath([])).toBe("(document)");
  });
});
