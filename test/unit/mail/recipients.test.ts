import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newMailRecipients, parseAddrSpec, replyAllRecipients } from "../../../shared/mail/recipients.ts";

const AGENT = "helpdesk@agents.example.com";

describe("parseAddrSpec", () => {
  it.each(["a@example.com", "first.last+tag@sub.example.co.uk", "o'brien@example.ie", "A_B-c@Example.COM"])(
    "accepts %s",
    (a) => expect(parseAddrSpec(a).ok).toBe(true),
  );

  it("lower-cases the domain only", () => {
    expect(parseAddrSpec(" Bob@Example.COM ")).toEqual({ ok: true, address: "Bob@example.com" });
  });

  it.each([
    ["display name", "Bob <bob@example.com>"],
    ["angle brackets", "<bob@example.com>"],
    ["quoted local part", '"bob"@example.com'],
    ["quoted local part with @", '"ceo@bank.com"@evil.com'],
    ["comment", "bob@example.com (CEO)"],
    ["CRLF header smuggling", "bob@example.com\r\nBcc: v@example.com"],
    ["LF", "bob@example.com\nX: y"],
    ["two addresses", "a@example.com, b@example.com"],
    ["group", "team: a@example.com;"],
    ["domain literal", "bob@[127.0.0.1]"],
    ["encoded word", "=?utf-8?q?bob?=@example.com"],
    ["no domain dot", "bob@localhost"],
    ["numeric TLD", "bob@1.2.3.4"],
    ["leading dot", ".bob@example.com"],
    ["double dot", "bo..b@example.com"],
    ["non-ASCII", "böb@example.com"],
    ["no local part", "@example.com"],
    ["too long", `${"a".repeat(65)}@example.com`],
    ["empty", ""],
  ])("refuses %s", (_, a) => expect(parseAddrSpec(a).ok).toBe(false));
});

describe("replyAllRecipients (G9)", () => {
  const base = {
    inboundFrom: "alice@example.com",
    inboundTo: [AGENT, "bob@example.com"],
    inboundCc: ["carol@example.org"],
    agentAddress: AGENT,
    max: 20,
  };

  it("sender in To, other To kept, Cc kept, agent dropped", () => {
    expect(replyAllRecipients(base)).toEqual({
      ok: true,
      to: ["alice@example.com", "bob@example.com"],
      cc: ["carol@example.org"],
      bcc: [],
      dropped: [],
    });
  });

  it("drops the agent under any case or +tag (routing key)", () => {
    const r = replyAllRecipients({
      ...base,
      inboundTo: ["Helpdesk+Sales@Agents.Example.com"],
      inboundCc: ["HELPDESK@agents.example.com"],
      extraBcc: ["helpdesk+x@agents.example.com"],
    });
    expect(r).toMatchObject({ ok: true, to: ["alice@example.com"], cc: [], bcc: [] });
  });

  it("keeps the sender in To even if the model puts them in Cc or Bcc; de-duplicates case-insensitively", () => {
    const r = replyAllRecipients({
      ...base,
      extraTo: ["BOB@example.com"],
      extraCc: ["Alice@Example.com", "dave@example.net"],
      extraBcc: ["alice@example.com", "carol@EXAMPLE.org", "erin@example.net"],
    });
    expect(r).toMatchObject({
      ok: true,
      to: ["alice@example.com", "bob@example.com"],
      cc: ["carol@example.org", "dave@example.net"],
      bcc: ["erin@example.net"],
    });
  });

  it("a different +tag of another person is a different mailbox and is kept", () => {
    const r = replyAllRecipients({ ...base, extraCc: ["alice+billing@example.com"] });
    expect(r).toMatchObject({ ok: true, cc: ["carol@example.org", "alice+billing@example.com"] });
  });

  it("refuses an invalid model-supplied address, naming it in address characters only", () => {
    expect(replyAllRecipients({ ...base, extraCc: ["Eve <eve@example.com>\r\nBcc: x@y.z"] })).toEqual({
      ok: false,
      reason: "recipient-invalid",
      detail: "Eve <eve@example.com>??Bcc: x@y.z",
    });
  });

  it("drops (and reports) unusable inbound To/Cc entries written by the sender", () => {
    const r = replyAllRecipients({ ...base, inboundCc: ['"x@y"@evil.com', "carol@example.org"] });
    expect(r).toMatchObject({ ok: true, cc: ["carol@example.org"], dropped: ['"x@y"@evil.com'] });
  });

  it("over the cap is a failure, not a truncation", () => {
    const extra = Array.from({ length: 18 }, (_, i) => `p${i}@example.net`);
    expect(replyAllRecipients({ ...base, extraBcc: extra })).toEqual({
      ok: false,
      reason: "too-many-recipients",
      detail: "21 recipients > 20",
    });
    expect(replyAllRecipients({ ...base, extraBcc: extra.slice(0, 17) }).ok).toBe(true);
  });

  it("a mail from the agent itself leaves nobody to answer", () => {
    expect(replyAllRecipients({ ...base, inboundFrom: AGENT, inboundTo: [], inboundCc: [] })).toEqual({
      ok: false,
      reason: "no-recipients",
    });
  });
});

describe("newMailRecipients", () => {
  it("validates every address and drops the agent", () => {
    expect(
      newMailRecipients({
        to: ["a@example.com", "Helpdesk@agents.example.com"],
        cc: ["b@example.com"],
        agentAddress: AGENT,
        max: 5,
      }),
    ).toEqual({ ok: true, to: ["a@example.com"], cc: ["b@example.com"], bcc: [], dropped: [] });
    expect(newMailRecipients({ to: ["not an address"], agentAddress: AGENT, max: 5 }).ok).toBe(false);
    expect(newMailRecipients({ to: [AGENT], agentAddress: AGENT, max: 5 })).toEqual({
      ok: false,
      reason: "no-recipients",
    });
  });
});

// Addresses that are the agent under some spelling: case changes and a +tag.
const agentSpelling = fc
  .tuple(
    fc.array(fc.boolean(), { minLength: AGENT.length, maxLength: AGENT.length }),
    fc.option(fc.stringMatching(/^[a-z0-9]{1,8}$/)),
  )
  .map(([upper, tag]) => {
    const cased = [...AGENT].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("");
    return tag ? cased.replace("@", `+${tag}@`) : cased;
  });
const other = fc.stringMatching(/^[a-z]{1,6}@(example\.com|example\.org|agents\.example\.com)$/);
const someone = fc.oneof(agentSpelling, other);

describe("properties", () => {
  it("the agent never appears among its own recipients; no address twice; the sender always in To", () => {
    fc.assert(
      fc.property(
        other,
        fc.array(someone, { maxLength: 6 }),
        fc.array(someone, { maxLength: 6 }),
        fc.array(someone, { maxLength: 4 }),
        fc.array(someone, { maxLength: 4 }),
        fc.array(someone, { maxLength: 4 }),
        (from, to, cc, extraTo, extraCc, extraBcc) => {
          const r = replyAllRecipients({
            inboundFrom: from,
            inboundTo: to,
            inboundCc: cc,
            agentAddress: AGENT,
            extraTo,
            extraCc,
            extraBcc,
            max: 50,
          });
          if (!r.ok) throw new Error(`unexpected ${r.reason}`);
          const all = [...r.to, ...r.cc, ...r.bcc];
          for (const a of all) expect(a.toLowerCase().replace(/\+[^@]*/, "")).not.toBe(AGENT);
          expect(new Set(all.map((a) => a.toLowerCase())).size).toBe(all.length);
          expect(r.to.map((a) => a.toLowerCase())).toContain(from.toLowerCase());
        },
      ),
    );
  });
});
