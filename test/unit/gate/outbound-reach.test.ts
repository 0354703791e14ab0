import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AccessRule } from "../../../shared/config/schema.ts";
import {
  checkOutboundReach,
  type OutboundReachInput,
  outboundAllowed,
  replyAudience,
} from "../../../shared/gate/outbound-reach.ts";

const allow = (pattern: string): AccessRule => ({ pattern, effect: "allow" });
const deny = (pattern: string): AccessRule => ({ pattern, effect: "deny" });

const AGENT = "helpdesk@agents.example.net";
const DOMAINS = ["agents.example.net", "staff.example.org"];
const SENDER = "carol@customer.example";
/** The answered mail: Carol wrote to the agent with Dave in To and Erin in Cc (all signed). */
const REPLY = { sender: SENDER, to: [AGENT, "dave@customer.example"], cc: ["erin@other.example"] };

/** A send from a run Carol's mail started (the common case); `startedBy: "schedule"` for a responsibility's. */
function input(over: Partial<OutboundReachInput> = {}): OutboundReachInput {
  return {
    rules: [],
    domains: DOMAINS,
    ownDomains: [],
    startedBy: "sender",
    agent: AGENT,
    mode: "reply",
    to: [],
    cc: [],
    bcc: [],
    reply: REPLY,
    channelClosed: false,
    ...over,
  };
}

describe("outboundAllowed: the rules' algebra on routing keys", () => {
  it.each([
    // No allow rule, a scheduled run: the registered domains, exactly.
    [[], "ops@agents.example.net", true],
    [[], "Ops+Tag@Agents.Example.NET", true],
    [[], "x@staff.example.org", true],
    // A subdomain of a registered domain is not registered (it may be delegated to someone else).
    [[], "x@mail.agents.example.net", false],
    [[], "x@evil-agents.example.net", false],
    [[], "attacker@evil.example", false],
    // Deny-only: narrower than the default, never wider.
    [[deny("ops@agents.example.net")], "ops@agents.example.net", false],
    [[deny("ops@agents.example.net")], "sales@agents.example.net", true],
    [[deny("*@spam.example")], "attacker@evil.example", false],
    // Any allow rule makes an allow list: the registered domains are then out unless allowed.
    [[allow("*@partner.example")], "bob@partner.example", true],
    [[allow("*@partner.example")], "bob+x@Partner.Example", true],
    [[allow("*@partner.example")], "ops@agents.example.net", false],
    [[allow("*@**.partner.example")], "bob@eu.partner.example", true],
    // Deny wins over allow.
    [[allow("*@partner.example"), deny("ceo@partner.example")], "ceo@partner.example", false],
    [[allow("*@partner.example"), deny("ceo@partner.example")], "cfo@partner.example", true],
    [[allow("*"), deny("*@evil.example")], "attacker@evil.example", false],
    [[allow("*")], "anyone@anywhere.example", true],
  ] as const)("scheduled run: %j allows %s: %s", (rules, address, expected) => {
    expect(outboundAllowed(rules, DOMAINS, "schedule", address)).toBe(expected);
  });

  it.each([
    // A run an outside sender started has no default reach; the operator's own domains included.
    [[], "staff@agents.example.net", false],
    [[], "Staff+Tag@Agents.Example.NET", false],
    [[], "x@staff.example.org", false],
    [[], "attacker@evil.example", false],
    [[deny("*@spam.example")], "staff@agents.example.net", false],
    // An allow rule that names the address, exactly or by pattern, is what lets it through.
    [[allow("staff@agents.example.net")], "staff@agents.example.net", true],
    [[allow("staff@agents.example.net")], "sales@agents.example.net", false],
    [[allow("*@agents.example.net")], "staff+x@Agents.Example.Net", true],
    [[allow("*@**.agents.example.net")], "x@mail.agents.example.net", true],
    [[allow("*@agents.example.net"), deny("ceo@agents.example.net")], "ceo@agents.example.net", false],
    [[allow("*")], "anyone@anywhere.example", true],
  ] as const)("sender's run: %j allows %s: %s", (rules, address, expected) => {
    expect(outboundAllowed(rules, DOMAINS, "sender", address)).toBe(expected);
  });

  it("with an allow rule the rules alone decide, whoever started the run", () => {
    const rules = [allow("*@partner.example"), deny("ceo@partner.example")];
    for (const a of ["bob@partner.example", "ceo@partner.example", "ops@agents.example.net"])
      expect(outboundAllowed(rules, DOMAINS, "sender", a)).toBe(
        outboundAllowed(rules, DOMAINS, "schedule", a),
      );
  });

  const key = fc.constantFrom(
    "ops@agents.example.net",
    "x@staff.example.org",
    "bob@partner.example",
    "ceo@partner.example",
    "attacker@evil.example",
    "x@mail.agents.example.net",
  );
  const pattern = fc.constantFrom(
    "*",
    "*@partner.example",
    "ceo@partner.example",
    "*@evil.example",
    "ops@agents.example.net",
    "*@**.agents.example.net",
  );
  const rule = fc.record({ pattern, effect: fc.constantFrom("allow" as const, "deny" as const) });
  const startedBy = fc.constantFrom("sender" as const, "schedule" as const);

  it("a deny rule only ever narrows (property)", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), pattern, key, startedBy, (rules, p, k, by) => {
        if (!outboundAllowed(rules, DOMAINS, by, k))
          expect(outboundAllowed([...rules, deny(p)], DOMAINS, by, k)).toBe(false);
      }),
    );
  });

  it("a matching deny always refuses, whatever else is there (property)", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), key, startedBy, (rules, k, by) => {
        expect(outboundAllowed([...rules, deny(k)], DOMAINS, by, k)).toBe(false);
      }),
    );
  });

  it("a sender's run never reaches more than a scheduled run under the same rules (property)", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), key, (rules, k) => {
        if (outboundAllowed(rules, DOMAINS, "sender", k))
          expect(outboundAllowed(rules, DOMAINS, "schedule", k)).toBe(true);
      }),
    );
  });
});

describe("checkOutboundReach", () => {
  it("a plain reply reaches the proven sender and the signed To/Cc, whatever the rules say", () => {
    expect(checkOutboundReach(input())).toEqual({ ok: true });
    expect(checkOutboundReach(input({ rules: [deny("*")] }))).toEqual({ ok: true });
  });

  it("new-mode mail to a disallowed address is refused whole, naming it and who decides", () => {
    const r = checkOutboundReach(
      input({
        mode: "new",
        startedBy: "schedule",
        to: ["ops@agents.example.net", "attacker@evil.example"],
        reply: undefined,
      }),
    );
    expect(r).toMatchObject({
      ok: false,
      reason: "recipient-not-allowed",
      refused: ["attacker@evil.example"],
    });
    expect(!r.ok && r.detail).toContain("attacker@evil.example");
    expect(!r.ok && r.detail).toMatch(/outbound rules, set by the operator/);
    expect(!r.ok && r.detail).toContain("Nothing was sent");
    expect(!r.ok && r.detail).not.toContain("ops@agents.example.net");
  });

  it("a scheduled run's new mail goes where the rules allow: registered domains by default, an allow list otherwise", () => {
    const scheduled = { mode: "new", startedBy: "schedule", reply: undefined } as const;
    expect(checkOutboundReach(input({ ...scheduled, to: ["ops@agents.example.net"] })).ok).toBe(true);
    const partner = [allow("*@partner.example")];
    expect(checkOutboundReach(input({ ...scheduled, to: ["bob@partner.example"], rules: partner })).ok).toBe(
      true,
    );
    expect(
      checkOutboundReach(
        input({
          ...scheduled,
          to: ["ceo@partner.example"],
          rules: [...partner, deny("ceo@partner.example")],
        }),
      ),
    ).toMatchObject({ ok: false, refused: ["ceo@partner.example"] });
  });

  describe("a run an outside sender started writes only to the mail it answers, unless a rule names more", () => {
    const STAFF = "staff@agents.example.net";

    it("new mail to the operator's own domain is refused without a rule naming it, in every field", () => {
      for (const field of ["to", "cc", "bcc"] as const) {
        const r = checkOutboundReach(
          input({
            mode: "new",
            to: ["x@partner.example"],
            [field]: [STAFF],
            rules: [allow("x@partner.example")],
          }),
        );
        expect(r).toMatchObject({ ok: false, reason: "recipient-not-allowed", refused: [STAFF] });
      }
      const r = checkOutboundReach(input({ mode: "new", to: [STAFF] }));
      expect(r).toMatchObject({ ok: false, reason: "recipient-not-allowed", refused: [STAFF] });
      // The model is told why and what it can still do.
      expect(!r.ok && r.detail).toContain("started by mail");
      expect(!r.ok && r.detail).toContain("mode `reply`");
      expect(!r.ok && r.detail).toMatch(/outbound rules, set by the operator/);
      // A deny-only agent is no wider.
      expect(
        checkOutboundReach(input({ mode: "new", to: [STAFF], rules: [deny("*@evil.example")] })).ok,
      ).toBe(false);
    });

    it("nor can the model reach staff by adding them to a reply instead", () => {
      for (const field of ["to", "cc", "bcc"] as const)
        expect(checkOutboundReach(input({ [field]: [STAFF] }))).toMatchObject({
          ok: false,
          reason: "recipient-not-allowed",
          refused: [STAFF],
        });
    });

    it("an outbound rule that names the address lets it through, exactly or by pattern", () => {
      for (const rules of [[allow(STAFF)], [allow("*@agents.example.net")], [allow("*")]]) {
        expect(checkOutboundReach(input({ mode: "new", to: [STAFF], rules })).ok).toBe(true);
        expect(checkOutboundReach(input({ bcc: [STAFF], rules })).ok).toBe(true);
      }
      expect(
        checkOutboundReach(input({ mode: "new", to: [STAFF], rules: [allow("*"), deny(STAFF)] })),
      ).toMatchObject({ ok: false, refused: [STAFF] });
    });

    it("the reply itself still reaches its own participants without any rule", () => {
      expect(checkOutboundReach(input())).toEqual({ ok: true });
      expect(checkOutboundReach(input({ cc: ["dave@customer.example"] }))).toEqual({ ok: true });
    });

    it("a scheduled run keeps the registered domains as its default", () => {
      expect(
        checkOutboundReach(input({ mode: "new", to: [STAFF], startedBy: "schedule", reply: undefined })),
      ).toEqual({ ok: true });
    });
  });

  it("a new mail has no automatic participants: even the run's own sender needs the rules", () => {
    // `reply` is ignored in new mode: nothing there is exempt.
    expect(checkOutboundReach(input({ mode: "new", to: [SENDER] }))).toMatchObject({
      ok: false,
      refused: [SENDER],
    });
  });

  it("an address the model adds to a reply (to, cc or bcc) must be allowed", () => {
    for (const field of ["to", "cc", "bcc"] as const)
      expect(checkOutboundReach(input({ [field]: ["attacker@evil.example"] }))).toMatchObject({
        ok: false,
        reason: "recipient-not-allowed",
        refused: ["attacker@evil.example"],
      });
    expect(checkOutboundReach(input({ bcc: ["ops@agents.example.net"], startedBy: "schedule" })).ok).toBe(
      true,
    );
  });

  it("naming a reply's own participant again adds nobody, so it needs no rule (routing keys compared)", () => {
    expect(checkOutboundReach(input({ cc: ["Carol+x@Customer.example", "erin@other.example"] })).ok).toBe(
      true,
    );
  });

  it("every refused recipient is named once; the agent itself is never a recipient", () => {
    const r = checkOutboundReach(
      input({
        to: ["a@evil.example", AGENT],
        cc: ["b@evil.example", "A+dup@evil.example"],
        bcc: ["helpdesk+x@agents.example.net"],
      }),
    );
    expect(r).toMatchObject({ ok: false, refused: ["a@evil.example", "b@evil.example"] });
    expect(checkOutboundReach(input({ rules: [deny("*")], to: [AGENT] })).ok).toBe(true);
  });

  it("a closed channel (G18) holds the reply's other participants to the rules too; the proven sender stays", () => {
    const closed = input({ channelClosed: true });
    const r = checkOutboundReach(closed);
    // Only the closed channel refuses this reply: the reason says so (G18's code), and so does the detail.
    expect(r).toMatchObject({
      ok: false,
      reason: "egress-channel-closed",
      refused: ["dave@customer.example", "erin@other.example"],
    });
    expect(!r.ok && r.detail).toContain("read data wider than its sender's own");
    // A named address the rules refuse in any run keeps its own reason.
    expect(checkOutboundReach({ ...closed, bcc: ["attacker@evil.example"] })).toMatchObject({
      reason: "recipient-not-allowed",
      refused: ["attacker@evil.example", "dave@customer.example", "erin@other.example"],
    });
    expect(checkOutboundReach({ ...closed, reply: { sender: SENDER, to: [AGENT], cc: [] } })).toEqual({
      ok: true,
    });
    expect(
      checkOutboundReach({ ...closed, rules: [allow("*@customer.example"), allow("*@other.example")] }),
    ).toEqual({ ok: true });
    // A participant named again is no longer exempt once the channel is closed.
    expect(
      checkOutboundReach({
        ...closed,
        reply: { sender: SENDER, to: [], cc: ["dave@customer.example"] },
        bcc: ["dave@customer.example"],
      }),
    ).toMatchObject({ ok: false, reason: "egress-channel-closed", refused: ["dave@customer.example"] });
  });

  it("shows model-chosen text as bounded printable ASCII", () => {
    const r = checkOutboundReach(
      input({ mode: "new", to: [`x\u202e@evil.example`, `${"a".repeat(300)}@e.example`] }),
    );
    expect(!r.ok && r.refused[0]).toBe("x?@evil.example");
    expect(!r.ok && r.refused[1]).toHaveLength(100);
  });

  // Refused whole: the verdict is ok exactly when each recipient alone would be ok (property).
  it("refuses the request iff some recipient alone is refused (property)", () => {
    const addr = fc.constantFrom(
      "ops@agents.example.net",
      "bob@partner.example",
      "attacker@evil.example",
      SENDER,
      "dave@customer.example",
    );
    const rules = fc.subarray([
      allow("*@partner.example"),
      deny("ops@agents.example.net"),
      allow("*@agents.example.net"),
    ]);
    fc.assert(
      fc.property(
        rules,
        fc.constantFrom("reply" as const, "new" as const),
        fc.constantFrom("sender" as const, "schedule" as const),
        fc.boolean(),
        fc.array(addr, { maxLength: 3 }),
        fc.array(addr, { maxLength: 3 }),
        (rs, mode, startedBy, channelClosed, to, bcc) => {
          const base = input({ rules: rs, mode, startedBy, channelClosed, to: [], bcc: [] });
          const whole = checkOutboundReach({ ...base, to, bcc });
          const each = [...to, ...bcc].every((a) => checkOutboundReach({ ...base, to: [a] }).ok);
          const alone = checkOutboundReach(base).ok;
          expect(whole.ok).toBe(each && alone);
        },
      ),
    );
  });
});

describe("replyAudience: the audience never widens by a claim", () => {
  const reach = (rules: AccessRule[] = [], ownDomains: string[] = ["example.org"]) => ({
    agent: AGENT,
    rules,
    domains: DOMAINS,
    ownDomains,
  });
  // An outside sender names the operator's CFO (own domain) and their own colleague in a signed Cc.
  const claim = { sender: "mallory@evil.example", to: [AGENT], cc: ["cfo@example.org", "bob@evil.example"] };

  it("withholds an outside sender's participants at the operator's domains (registered or own, subdomains too)", () => {
    const out = replyAudience(
      { ...claim, cc: [...claim.cc, "ops@staff.example.org", "it@eu.example.org"] },
      reach(),
    );
    expect(out.kept.cc).toEqual(["bob@evil.example"]);
    expect(out.withheld).toEqual(["cfo@example.org", "ops@staff.example.org", "it@eu.example.org"]);
    // the agent itself stays in To (reply-all drops it later); not a withheld participant
    expect(out.kept.to).toEqual([AGENT]);
  });

  it("keeps one the outbound rules name, and everyone when the sender is the operator's own", () => {
    expect(replyAudience(claim, reach([allow("cfo@example.org")])).withheld).toEqual([]);
    const staff = { ...claim, sender: "ceo@example.org" };
    expect(replyAudience(staff, reach()).kept).toEqual(staff);
  });

  it("checkOutboundReach: a model naming a withheld participant is held to the rules", () => {
    const r = checkOutboundReach(
      input({ ownDomains: ["example.org"], reply: claim, to: ["cfo@example.org"] }),
    );
    expect(r).toMatchObject({ ok: false, reason: "recipient-not-allowed", refused: ["cfo@example.org"] });
  });
});
