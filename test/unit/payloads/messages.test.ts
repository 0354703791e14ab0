import { describe, expect, it } from "vitest";
import {
  type AgentStepPayload,
  type ConfirmEnvelope,
  parseAgentStepPayload,
  type StepPayload,
  type TickPayload,
} from "../../../shared/payloads/agent-step.ts";
import { parseOutboundPayload } from "../../../shared/payloads/outbound.ts";
import { parseWebhooksPayload } from "../../../shared/payloads/webhooks.ts";

const step: StepPayload = { runId: "run-1", round: 2 };
const tick: TickPayload = { tick: "2026-11-29T12:01:00.000Z" };
const confirm: ConfirmEnvelope = {
  confirm: {
    code: "K7Q2M9XT4Z",
    action: "unclear",
    understood: "several-codes",
    replyId: "ses-2",
    hop: 1,
    sender: "boss@example.com",
    agent: "helpdesk@agents.example.net",
    agentOriginated: false,
  },
};

describe("the agent-step queue's messages (one schema for producers and the consumer)", () => {
  it("what a producer sends, the consumer reads back unchanged", () => {
    for (const m of [step, tick, confirm] satisfies AgentStepPayload[])
      expect(parseAgentStepPayload(JSON.stringify(m))).toEqual({ ok: true, message: m });
  });

  it("a tick wins over a step, and a confirmation over a step, whatever else the body carries", () => {
    const read = (m: object) => parseAgentStepPayload(JSON.stringify(m));
    expect(read({ ...step, ...tick })).toEqual({ ok: true, message: tick });
    expect(read({ ...step, ...confirm })).toEqual({ ok: true, message: confirm });
    // An invalid confirmation does not hide a valid step beside it.
    expect(read({ ...step, confirm: { code: "" } })).toEqual({ ok: true, message: step });
  });

  it("refuses what no producer may send, with the one pair of payload reason codes", () => {
    expect(parseAgentStepPayload("not json")).toEqual({
      ok: false,
      reason: "payload-not-json",
      detail: "not JSON",
    });
    for (const body of [
      "{}",
      JSON.stringify({ runId: "run-1", round: 0 }),
      JSON.stringify({ runId: "", round: 1 }),
      JSON.stringify({ runId: "run-1", round: 1001 }),
      JSON.stringify({ tick: "yesterday" }),
      JSON.stringify({ confirm: { ...confirm.confirm, action: "maybe" } }),
      JSON.stringify({ confirm: { ...confirm.confirm, hop: -1 } }),
    ])
      expect(parseAgentStepPayload(body), body).toMatchObject({ ok: false, reason: "payload-invalid" });
  });
});

describe("every queue's payloads fail one way", () => {
  it("outbound and events bodies are refused with the same two codes and a detail naming the field", () => {
    expect(parseOutboundPayload("{")).toEqual({ ok: false, reason: "payload-not-json", detail: "not JSON" });
    expect(parseWebhooksPayload("[")).toEqual({ ok: false, reason: "payload-not-json", detail: "not JSON" });
    const outbound = parseOutboundPayload(JSON.stringify({ mode: "reply" }));
    expect(outbound).toMatchObject({ ok: false, reason: "payload-invalid" });
    const events = parseWebhooksPayload(
      JSON.stringify({ kind: "deliver", endpointId: "crm", event: { id: "x" } }),
    );
    expect(events).toMatchObject({ ok: false, reason: "payload-invalid" });
    expect(events.ok ? "" : events.detail).toMatch(/^event\.id: /);
    expect(events.ok ? "" : events.detail.length).toBeLessThanOrEqual(300);
  });
});
