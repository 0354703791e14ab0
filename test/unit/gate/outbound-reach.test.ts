import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AccessRule } from "../../../shared/config/schema.ts";
import {
  checkOutboundReach,
  type OutboundReachInput,
  outboundAllowed,
} from "../../../shared/gate/outbound-reach.ts";

const allow = (pattern: string): AccessRule => ({ pattern, effect: "allow" });
const deny = (pattern: string): AccessRule => ({ pattern, effect: "deny" });

const AGENT = "helpdesk@agents.example.net";
const DOMAINS = ["agents.example.net", "staff.example.org"];
const SENDER = "carol@customer.example";
/** The answered mail: Carol wrote to the agent with Dave in To and Erin in Cc (all signed). */
const REPLY = { sender: SENDER, to: [AGENT, "dave@customer.example"], cc: ["erin@other.example"] };

function input(over: Partial<OutboundReachInput> = {}): OutboundReachInput {
  return {
    rules: [],
    domains: DOMAINS,
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
    // No rules: the registered domains, exactly.
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
  ] as const)("%j allows %s: %s", (rules, address, expected) => {
    expect(outboundAllowed(rules, DOMAINS, address)).toBe(expected);
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

  it("a deny rule only ever narrows (property)", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), pattern, key, (rules, p, k) => {
        if (!outboundAllowed(rules, DOMAINS, k))
          expect(outboundAllowed([...rules, deny(p)], DOMAINS, k)).toBe(false);
      }),
    );
  });

  it("a matching deny always refuses, whatever else is there (property)", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), key, (rules, k) => {
        expect(outboundAllowed([...rules, deny(k)], DOMAINS, k)).toBe(false);
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
      input({ mode: "new", to: ["ops@agents.example.net", "attacker@evil.example"], reply: undefined }),
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

  it("new mail goes where the rules allow: registered domains by default, an operator's allow list otherwise", () => {
    expect(checkOutboundReach(input({ mode: "new", to: ["ops@agents.example.net"] })).ok).toBe(true);
    const partner = [allow("*@partner.example")];
    expect(checkOutboundReach(input({ mode: "new", to: ["bob@partner.example"], rules: partner })).ok).toBe(
      true,
    );
    expect(
      checkOutboundReach(
        input({ mode: "new", to: ["ceo@partner.example"], rules: [...partner, deny("ceo@partner.example")] }),
      ),
    ).toMatchObject({ ok: false, refused: ["ceo@partner.example"] });
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
    expect(checkOutboundReach(input({ bcc: ["ops@agents.example.net"] })).ok).toBe(true);
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
        fc.boolean(),
        fc.array(addr, { maxLength: 3 }),
        fc.array(addr, { maxLength: 3 }),
        (rs, mode, channelClosed, to, bcc) => {
          const base = input({ rules: rs, mode, channelClosed, to: [], bcc: [] });
          const whole = checkOutboundReach({ ...base, to, bcc });
          const each = [...to, ...bcc].every((a) => checkOutboundReach({ ...base, to: [a] }).ok);
          const alone = checkOutboundReach(base).ok;
          expect(whole.ok).toBe(each && alone);
        },
      ),
    );
  });
});
