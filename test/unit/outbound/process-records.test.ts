import { describe, expect, it } from "vitest";
import { processOutboundRequest } from "../../../shared/outbound/process.ts";
import type { OutboundPayload } from "../../../shared/payloads/outbound.ts";
import { HELPDESK, recordingSes, world } from "./fakes.ts";

// What the send path writes besides the mail: the state item a refusal leaves behind, SES's envelope, and the
// log lines an operator reads.

const fresh = (over: Partial<OutboundPayload> = {}): OutboundPayload => ({
  requestId: "run-1:1:call-1",
  agent: HELPDESK.address,
  mode: "new",
  to: ["dave@example.net"],
  cc: [],
  bcc: [],
  subject: "Weekly digest",
  body: "Numbers attached.",
  attachmentIds: [],
  correlationId: "corr-1",
  kind: "agent",
  ...over,
});

describe("processOutboundRequest: a refused request", () => {
  it("is failed for good on its state item, with its reason, and logged; a redelivery never sends", async () => {
    let enabled = false;
    const w = world({
      agents: { get: async () => ({ ...HELPDESK, enabled }), outboundRules: async () => [] },
    });
    expect(await processOutboundRequest(fresh(), w.deps)).toMatchObject({
      status: "failed",
      reason: "agent-disabled",
    });
    expect(await w.deps.state.get("run-1:1:call-1")).toMatchObject({
      state: "failed",
      reason: "agent-disabled",
    });
    expect(w.logger.lines).toContainEqual({
      level: "warn",
      message: "outbound: request refused",
      extra: { requestId: "run-1:1:call-1", agent: HELPDESK.address, reason: "agent-disabled" },
    });
    enabled = true;
    expect(await processOutboundRequest(fresh(), w.deps)).toMatchObject({
      status: "failed",
      reason: "agent-disabled",
    });
    expect(w.ses.calls).toHaveLength(0);
  });
});

describe("processOutboundRequest: what SES is handed", () => {
  it("every recipient in the envelope, Bcc included", async () => {
    const w = world();
    await processOutboundRequest(fresh({ cc: ["carol@example.org"], bcc: ["erin@example.org"] }), w.deps);
    expect(w.ses.calls[0]).toMatchObject({
      from: HELPDESK.address,
      to: ["dave@example.net"],
      cc: ["carol@example.org"],
      bcc: ["erin@example.org"],
    });
  });

  it("a permanent rejection is logged as an error with SES's code", async () => {
    const w = world(
      {},
      recordingSes(() => ({ kind: "rejected", retryable: false, code: "MessageRejected" })),
    );
    await processOutboundRequest(fresh(), w.deps);
    expect(w.logger.lines).toContainEqual({
      level: "error",
      message: "outbound: SES rejected the message",
      extra: { requestId: "run-1:1:call-1", agent: HELPDESK.address, code: "MessageRejected" },
    });
  });
});
