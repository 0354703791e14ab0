import { describe, expect, it } from "vitest";
import { checkDocument } from "../../../shared/admin/document.ts";
import { agentItem, approverItem, toolkitItem } from "../../../shared/admin/schema.ts";
import { newMailRecipients } from "../../../shared/mail/recipients.ts";
import { EMPTY_ADMIN, testCatalog } from "../../helpers/admin-catalog.ts";

const catalog = testCatalog();
const none = { catalog, stored: EMPTY_ADMIN };
const S = "suzie@shopping.example.net";
const suzie = { address: S, name: "Suzie", model: "demo" };
const issuesOf = (r: ReturnType<typeof checkDocument>) => (r.ok ? [] : r.issues);

describe("checkDocument", () => {
  it("accepts the issue's minimal document and fills defaults", () => {
    const r = checkDocument(
      {
        agents: [suzie],
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
        agents: [{ ...suzie, maxToolTurns: 0 }],
        responsibilities: [{ id: "r", agent: S, schedule: "every day", prompt: "x" }],
      },
      none,
    );
    expect(issuesOf(r).map((i) => i.path)).toEqual([
      "agents[0].maxToolTurns",
      "responsibilities[0].schedule",
    ]);
  });

  it("refuses a reference to an agent that will not exist, unless it already does", () => {
    const doc = { accessRules: [{ agent: S, pattern: "*@evil.example", effect: "deny" }] };
    expect(checkDocument(doc, none)).toEqual({
      ok: false,
      reason: "invalid-document",
      issues: [{ path: "accessRules[0].agent", message: `no agent ${S} (add it under "agents")` }],
    });
    const stored = { ...EMPTY_ADMIN, agents: [agentItem.parse(suzie)] };
    expect(checkDocument(doc, { catalog, stored }).ok).toBe(true);
    // With replace, what is stored now is deleted: only the document's own items can be referenced.
    expect(checkDocument(doc, { catalog, stored, replace: true }).ok).toBe(false);
  });

  it("refuses the same key twice", () => {
    const rule = { agent: S, pattern: "a@b.com", effect: "deny" };
    const r = checkDocument({ agents: [suzie], accessRules: [rule, rule] }, none);
    expect(issuesOf(r)).toEqual([{ path: "accessRules[1].pattern", message: "duplicate of accessRules[0]" }]);
  });

  it("refuses a non-object document", () => {
    expect(checkDocument([], none).ok).toBe(false);
  });
});

describe("checkDocument names every problem at once (issue 31 item 7, finding 5)", () => {
  it("a field the schema refuses does not hide the agent's unregistered domain and unknown model", () => {
    const r = checkDocument(
      { agents: [{ ...suzie, address: "bad@other.com", model: "gpt5", maxRounds: "many" }] },
      none,
    );
    expect(issuesOf(r).map((i) => i.path)).toEqual([
      "agents[0].maxRounds",
      "agents[0].address",
      "agents[0].model",
    ]);
  });
});

describe("checkDocument against the deployment", () => {
  it("refuses an agent at a domain that is not registered, naming the registered ones", () => {
    const r = checkDocument({ agents: [{ ...suzie, address: "bad@other.com" }] }, none);
    expect(issuesOf(r)).toEqual([
      {
        path: "agents[0].address",
        message:
          'domain "other.com" is not registered; an agent\'s address must be at one of: shopping.example.net ("domains" in postern.config.json)',
      },
    ]);
    // Exact: a subdomain of a registered domain is not registered (G1 routes exact domains).
    expect(
      issuesOf(checkDocument({ agents: [{ ...suzie, address: "x@sub.shopping.example.net" }] }, none)),
    ).toHaveLength(1);
  });

  it("refuses a model that is not in the catalog, naming the catalog's", () => {
    const r = checkDocument(
      { agents: [{ ...suzie, model: "gpt5" }] },
      { catalog: testCatalog({ models: ["demo", "local"] }), stored: EMPTY_ADMIN },
    );
    expect(issuesOf(r)).toEqual([
      {
        path: "agents[0].model",
        message: 'no model "gpt5" in the catalog; one of: demo, local ("models" in postern.config.json)',
      },
    ]);
  });

  it("refuses a toolkit tool the registry does not hold; a resolver name is a grantable tool", () => {
    const r = checkDocument({ toolkits: [{ id: "k", tools: ["send_email", "not_a_tool"] }] }, none);
    expect(issuesOf(r).map((i) => i.path)).toEqual(["toolkits[0].tools[1]"]);
    expect(issuesOf(r)[0]?.message).toMatch(/^no tool "not_a_tool" in the registry; one of: .*send_email/);
    expect(
      checkDocument({ toolkits: [{ id: "k", tools: ["customer_profile", "issue_refund"] }] }, none).ok,
    ).toBe(true);
  });

  it("refuses unknown lists and unknown item fields, naming what is known", () => {
    const r = checkDocument({ agentz: [suzie], agents: [{ ...suzie, acceptBCC: true }] }, none);
    expect(issuesOf(r).map((i) => i.path)).toEqual(["agentz", "agents[0].acceptBCC"]);
    expect(issuesOf(r)[0]?.message).toBe(
      "unknown list; an admin document has agents, accessRules, outboundRules, toolkits, responsibilities, approvers, webhooks, mcpServers",
    );
    expect(issuesOf(r)[1]?.message).toMatch(
      /^unknown field; known fields: address, name, model, .*acceptBcc/,
    );
  });

  it("keeps a field the stored item already has (another version wrote it), but never adds one", () => {
    const stored = { ...EMPTY_ADMIN, agents: [agentItem.parse({ ...suzie, legacyFlag: true })] };
    expect(checkDocument({ agents: [{ ...suzie, legacyFlag: false }] }, { catalog, stored }).ok).toBe(true);
    const other = { ...suzie, address: "bob@shopping.example.net", legacyFlag: true };
    expect(issuesOf(checkDocument({ agents: [other] }, { catalog, stored })).map((i) => i.path)).toEqual([
      "agents[0].legacyFlag",
    ]);
  });

  it("accepts the fail-closed marker `admin export` writes on a synthetic deny rule", () => {
    const rule = { agent: S, pattern: "*", effect: "deny", failClosedFor: "allow#Bad" };
    expect(checkDocument({ agents: [suzie], outboundRules: [rule] }, none).ok).toBe(true);
  });

  it("refuses an upper-case address or pattern once, naming the lower-case form", () => {
    const r = checkDocument(
      {
        agents: [{ ...suzie, address: "Suzie@Shopping.example.net" }],
        accessRules: [{ agent: S, pattern: "Joe@X.com", effect: "allow" }],
        toolkits: [{ id: "k", agents: [S], senderRules: [{ pattern: "*@Staff.example", effect: "allow" }] }],
        approvers: [{ toolkit: "k", address: "Boss@example.com" }],
      },
      none,
    );
    expect(issuesOf(r)).toEqual([
      { path: "agents[0].address", message: 'must be lower-case: "suzie@shopping.example.net"' },
      { path: "accessRules[0].pattern", message: 'must be lower-case: "joe@x.com"' },
      { path: "toolkits[0].senderRules[0].pattern", message: 'must be lower-case: "*@staff.example"' },
      { path: "approvers[0].address", message: 'must be lower-case: "boss@example.com"' },
    ]);
  });
});

describe("approvers against what the outbound sends a confirm card to (G14)", () => {
  const kit = { id: "refunds", tools: ["issue_refund"], agents: [S] };
  const doc = (address: string) => ({
    agents: [suzie],
    toolkits: [kit],
    approvers: [{ toolkit: "refunds", address }],
  });

  it("refuses an address the outbound refuses as recipient-invalid (operator@localhost)", () => {
    const r = checkDocument(doc("operator@localhost"), none);
    expect(issuesOf(r)).toEqual([
      {
        path: "approvers[0].address",
        message: expect.stringMatching(/^cannot receive a confirm card: .*\(recipient-invalid\)$/),
      },
    ]);
  });

  it("agrees with the outbound's own addressing of a card, address by address", () => {
    // The card is new mail from the toolkit's agent: exactly what newMailRecipients accepts must be accepted here.
    for (const address of [
      "boss@example.com",
      "operator@postern.test",
      "a.b-c@x.y.example",
      "operator@localhost",
      "boss@example.c0m",
      "boss@[127.0.0.1]",
      "=?utf-8?q?x?=@example.com",
      "x..y@example.com",
      "boss@-example.com",
    ]) {
      const outbound = newMailRecipients({ to: [address], agentAddress: S, max: 20 }).ok;
      const admin = approverItem.safeParse({ toolkit: "refunds", address }).success
        ? checkDocument(doc(address), none).ok
        : false;
      expect({ address, admin }).toEqual({ address, admin: outbound });
    }
  });

  it("refuses an agent's own address: agent mail can never confirm", () => {
    const r = checkDocument(doc(S), none);
    expect(issuesOf(r)).toEqual([
      {
        path: "approvers[0].address",
        message: "is an agent's address; agent mail can never confirm a plan (G14)",
      },
    ]);
    const other = { ...suzie, address: "bob@shopping.example.net" };
    const stored = { ...EMPTY_ADMIN, agents: [agentItem.parse(other)] };
    expect(checkDocument(doc("Bob+x@shopping.example.net".toLowerCase()), { catalog, stored }).ok).toBe(
      false,
    );
  });

  it("refuses more approvers on one toolkit than a card may have recipients, stored ones counted", () => {
    const small = testCatalog({ maxRecipients: 2 });
    const stored = {
      ...EMPTY_ADMIN,
      agents: [agentItem.parse(suzie)],
      toolkits: [toolkitItem.parse(kit)],
      approvers: [approverItem.parse({ toolkit: "refunds", address: "a@example.com" })],
    };
    const two = [
      { toolkit: "refunds", address: "b@example.com" },
      { toolkit: "refunds", address: "c@example.com" },
    ];
    const r = checkDocument({ approvers: two }, { catalog: small, stored });
    expect(issuesOf(r)).toEqual([
      {
        path: "approvers[0].address",
        message:
          'toolkit "refunds" would have 3 approvers; a confirm card goes to at most 2 ("outbound.maxRecipients" in postern.config.json)',
      },
    ]);
    // Rewriting a stored approver does not count it twice.
    expect(
      checkDocument(
        { approvers: [two[0], { toolkit: "refunds", address: "a@example.com" }] },
        { catalog: small, stored },
      ).ok,
    ).toBe(true);
  });
});
