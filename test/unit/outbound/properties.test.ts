import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { routingKey } from "../../../shared/gate/address.ts";
import { processOutboundRequest } from "../../../shared/outbound/process.ts";
import type { OutboundPayload } from "../../../shared/payloads/outbound.ts";
import { HELPDESK, INBOUND, world } from "./fakes.ts";
import { readMail } from "./mail-helpers.ts";

/**
 * G9 and G5 as properties of the whole send path: whatever the request (the model's fields) and whatever the
 * stored inbound message looks like, what reaches SES is from the agent, stamped inbound + 1, and never
 * addressed to the agent itself.
 */
const AGENT = HELPDESK.address;
const agentSpelling = fc
  .tuple(
    fc.array(fc.boolean(), { minLength: AGENT.length, maxLength: AGENT.length }),
    fc.option(fc.stringMatching(/^[a-z0-9]{1,6}$/)),
  )
  .map(([up, tag]) => {
    const s = [...AGENT].map((c, i) => (up[i] ? c.toUpperCase() : c)).join("");
    return tag ? s.replace("@", `+${tag}@`) : s;
  });
const person = fc.stringMatching(/^[a-z]{1,5}@(example\.com|example\.org)$/);
const hostile = fc.constantFrom(
  "Helpdesk <ceo@bank.example>",
  "ceo@bank.example\r\nFrom: ceo@bank.example",
  '"helpdesk@agents.example.com"@evil.example',
);
const addressList = fc.array(fc.oneof(person, agentSpelling), { maxLength: 3 });
const text = fc.string({ maxLength: 80 }).map((s) => `${s}\r\nFrom: ceo@bank.example\nSubject: x`);

const request = fc.record({
  mode: fc.constantFrom("reply" as const, "new" as const),
  to: addressList,
  cc: addressList,
  bcc: addressList,
  subject: text,
  body: text,
});
const parent = fc.record({
  from: fc.oneof(person, agentSpelling),
  to: fc.array(fc.oneof(person, agentSpelling, hostile), { maxLength: 4 }),
  cc: fc.array(fc.oneof(person, agentSpelling, hostile), { maxLength: 4 }),
  // a stored mail has a subject, "" when it had none (store-accepted.ts)
  subject: fc.oneof(fc.constant(""), text),
  hop: fc.nat({ max: 49 }),
});

describe("outbound properties", () => {
  it("From is always the agent, the hop is inbound + 1, the agent never among its recipients", async () => {
    await fc.assert(
      fc.asyncProperty(request, parent, async (r, p) => {
        const inbound = { ...INBOUND, ...p };
        const w = world();
        w.deps = { ...w.deps, mailbox: { getMessage: async () => inbound, recordSent: async () => {} } };
        const message: OutboundPayload = {
          requestId: "prop-1",
          agent: AGENT,
          mode: r.mode,
          to: r.mode === "new" ? [...r.to, "x@example.net"] : r.to,
          cc: r.cc,
          bcc: r.bcc,
          body: r.body,
          attachmentIds: [],
          correlationId: "c",
          ...(r.mode === "reply" ? { replyTo: { messageId: inbound.id } } : { subject: r.subject }),
        };
        const out = await processOutboundRequest(message, w.deps);
        if (out.status !== "done") {
          // The only refusals possible here: nobody is left once the agent is dropped, or reply-all plus the
          // model's additions exceed the recipient cap (10 in this world). Either way, nothing is sent.
          expect(out).toMatchObject({ status: "failed" });
          expect(["no-recipients", "too-many-recipients"]).toContain((out as { reason: string }).reason);
          expect(w.ses.calls).toHaveLength(0);
          return;
        }
        const call = w.ses.calls[0];
        if (!call) throw new Error("no SES call");
        expect(call.from).toBe(AGENT);
        for (const a of [...call.to, ...call.cc, ...call.bcc]) expect(routingKey(a)).not.toBe(AGENT);
        const { email, header } = await readMail(call.raw);
        expect(header("from")).toHaveLength(1);
        expect(email.from?.address).toBe(AGENT);
        expect(email.from?.name).toBe(HELPDESK.name);
        for (const a of [...(email.to ?? []), ...(email.cc ?? [])])
          expect(routingKey(a.address ?? "")).not.toBe(AGENT);
        expect(header("x-postern-recursion")).toEqual([String(r.mode === "reply" ? p.hop + 1 : 1)]);
        // The original sender always leads To (unless the "sender" was the agent itself, which is dropped).
        if (r.mode === "reply" && routingKey(p.from) !== AGENT) expect(call.to[0]).toBe(p.from);
      }),
      { numRuns: 60 },
    );
  });
});
