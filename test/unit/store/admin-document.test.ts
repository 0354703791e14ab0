import { describe, expect, it } from "vitest";
import { checkDocument } from "../../../shared/admin/document.ts";

const none = { agents: new Set<string>(), toolkits: new Set<string>() };
const S = "suzie@shopping.example.net";

describe("checkDocument", () => {
  it("accepts the issue's minimal document and fills defaults", () => {
    const r = checkDocument(
      {
        agents: [{ address: S, name: "Suzie", model: "demo" }],
        accessRules: [{ agent: S, pattern: "joe@football.example.com", effect: "allow" }],
        toolkits: [{ id: "default", tools: ["send_email"], agents: [S] }],
      },
      none,
    );
    expect(r.ok && r.doc.toolkits[0]).toMatchObject({ allowScheduled: false, senderRules: [] });
    expect(r.ok && r.doc.responsibilities).toEqual([]);
  });

  it("names the item path and field of every problem", () => {
    const r = checkDocument(
      {
        agents: [{ address: S, name: "Suzie", model: "demo", maxToolTurns: 0 }],
        responsibilities: [{ id: "r", agent: S, schedule: "every day", prompt: "x" }],
      },
      none,
    );
    expect(!r.ok && r.issues.map((i) => i.path)).toEqual([
      "agents[0].maxToolTurns",
      "responsibilities[0].schedule",
    ]);
  });

  it("refuses a reference to an agent that will not exist, unless it already does", () => {
    const doc = { accessRules: [{ agent: S, pattern: "*@evil.example", effect: "deny" }] };
    expect(checkDocument(doc, none)).toEqual({
      ok: false,
      issues: [{ path: "accessRules[0].agent", message: `no agent ${S} (add it under "agents")` }],
    });
    expect(checkDocument(doc, { agents: new Set([S]), toolkits: new Set() }).ok).toBe(true);
  });

  it("refuses the same key twice", () => {
    const rule = { agent: S, pattern: "a@b.com", effect: "deny" };
    const r = checkDocument(
      { agents: [{ address: S, name: "S", model: "m" }], accessRules: [rule, rule] },
      none,
    );
    expect(!r.ok && r.issues).toEqual([
      { path: "accessRules[1].pattern", message: "duplicate of accessRules[0]" },
    ]);
  });

  it("refuses a non-object document", () => {
    expect(checkDocument([], none).ok).toBe(false);
  });
});
