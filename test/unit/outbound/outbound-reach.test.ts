import { describe, expect, it } from "vitest";
import type { AccessRule } from "../../../shared/config/schema.ts";
import { processOutboundRequest } from "../../../shared/outbound/process.ts";
import type { OutboundPayload } from "../../../shared/payloads/outbound.ts";
import { noticeRequest } from "../../../shared/payloads/outbound.ts";
import { HELPDESK, newRequest, replyRequest, world } from "./fakes.ts";

/**
 * The outbound function re-checks outbound reach from the admin table, whatever agent-step queued: a
 * request the agent's outbound rules refuse is failed whole, before anything is composed, stored or sent.
 * INBOUND: alice@example.com wrote to the agent and bob@example.com, Cc carol@example.org.
 */

const reply = replyRequest;
const fresh = (over: Partial<OutboundPayload> = {}): OutboundPayload =>
  newRequest({ to: ["ops@agents.example.com"], subject: "Digest", ...over });

/**
 * A world whose agent has these outbound rules (none: a sender's run reaches only a reply's participants, a
 * scheduled run also the registered domain agents.example.com).
 */
function ruled(rules: readonly AccessRule[] = []) {
  return world({
    agents: {
      get: async (a) => (a === HELPDESK.address ? HELPDESK : null),
      outboundRules: async () => rules,
    },
  });
}

async function refusedWhole(
  w: ReturnType<typeof ruled>,
  message: OutboundPayload,
  reason: "recipient-not-allowed" | "egress-channel-closed" = "recipient-not-allowed",
) {
  expect(await processOutboundRequest(message, w.deps)).toEqual({
    status: "failed",
    requestId: message.requestId,
    reason,
  });
  expect(w.ses.calls).toEqual([]);
  expect(w.blobs.size).toBe(0);
  expect(w.recorded).toEqual([]);
  expect(await w.deps.state.get(message.requestId)).toMatchObject({ state: "failed", reason });
  const line = w.logger.text().find((l) => l.includes("outbound: request refused"));
  expect(line).toContain(reason);
  return line ?? "";
}

describe("outbound reach, re-checked in the outbound function", () => {
  it("new-mode mail to a disallowed address is refused whole: no SES call, no evidence, failed with the reason", async () => {
    const w = ruled();
    const line = await refusedWhole(
      w,
      fresh({ to: ["ops@agents.example.com"], bcc: ["attacker@evil.example"] }),
    );
    expect(line).toContain("attacker@evil.example");
    // A redelivery finds it failed and does not try again.
    expect(await processOutboundRequest(fresh(), w.deps)).toMatchObject({ reason: "recipient-not-allowed" });
    expect(w.ses.calls).toEqual([]);
  });

  it("a scheduled run's new mail within the registered domain goes; an allow list decides otherwise, deny first", async () => {
    const w = ruled();
    expect(await processOutboundRequest(fresh({ startedBy: "schedule" }), w.deps)).toMatchObject({
      status: "done",
    });
    const partner = ruled([
      { pattern: "*@partner.example", effect: "allow" },
      { pattern: "ceo@partner.example", effect: "deny" },
    ]);
    expect(
      await processOutboundRequest(fresh({ requestId: "a", to: ["bob@partner.example"] }), partner.deps),
    ).toMatchObject({ status: "done" });
    await refusedWhole(
      ruled([
        { pattern: "*@partner.example", effect: "allow" },
        { pattern: "ceo@partner.example", effect: "deny" },
      ]),
      fresh({ to: ["ceo@partner.example"] }),
    );
  });

  it("a sender's run (stamped, or unstamped: the narrower reading) reaches staff only by a rule naming them", async () => {
    const staff = { to: ["staff@agents.example.com"] };
    const line = await refusedWhole(ruled(), fresh({ ...staff, startedBy: "sender" }));
    expect(line).toContain("staff@agents.example.com");
    // A request that does not say who started its run is held to a sender's run: whatever put it on the queue.
    await refusedWhole(ruled(), fresh(staff));
    // So is an address added to a reply.
    await refusedWhole(ruled(), reply({ bcc: ["staff@agents.example.com"], startedBy: "sender" }));
    for (const pattern of ["staff@agents.example.com", "*@agents.example.com"]) {
      const named = ruled([{ pattern, effect: "allow" }]);
      expect(
        await processOutboundRequest(fresh({ ...staff, startedBy: "sender" }), named.deps),
      ).toMatchObject({ status: "done" });
      expect(named.ses.calls.map((c) => c.to)).toEqual([["staff@agents.example.com"]]);
    }
  });

  it("a reply reaches its own participants under any rules; an added Bcc must be allowed", async () => {
    const w = ruled([{ pattern: "*", effect: "deny" }]);
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({ status: "done" });
    expect(w.ses.calls[0]).toMatchObject({
      to: ["alice@example.com", "bob@example.com"],
      cc: ["carol@example.org"],
    });
    await refusedWhole(ruled(), reply({ bcc: ["attacker@evil.example"] }));
  });

  it("a request stamped channel-closed (G18) holds the reply's other participants to the rules", async () => {
    await refusedWhole(ruled(), reply({ channelClosed: true }), "egress-channel-closed");
    const w = ruled([
      { pattern: "*@example.com", effect: "allow" },
      { pattern: "*@example.org", effect: "allow" },
    ]);
    expect(await processOutboundRequest(reply({ channelClosed: true }), w.deps)).toMatchObject({
      status: "done",
    });
  });

  it("engine mail is not the model's: notices, confirm cards to approvers and operator mail skip the rules", async () => {
    const w = ruled([{ pattern: "*", effect: "deny" }]);
    const notice = noticeRequest({
      requestId: "notice-1",
      from: HELPDESK.address,
      to: "mallory@example.com",
      reason: "access-denied",
      inboundHop: 0,
      correlationId: "c",
    });
    expect(await processOutboundRequest(notice, w.deps)).toMatchObject({ status: "done" });
    const card = fresh({
      requestId: "card-run-1",
      to: ["boss@approvers.example"],
      recipientsFrom: "approvers",
    });
    expect(await processOutboundRequest(card, w.deps)).toMatchObject({ status: "done" });
    const operator = fresh({ requestId: "operator-1", to: ["anyone@example.net"] });
    expect(await processOutboundRequest(operator, w.deps, { origin: "operator" })).toMatchObject({
      status: "done",
    });
    expect(w.ses.calls).toHaveLength(3);
  });
});
