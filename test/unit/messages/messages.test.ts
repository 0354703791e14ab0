import { describe, expect, it } from "vitest";
import {
  type AgentStepMessage,
  type ConfirmEnvelope,
  parseAgentStepMessage,
  type StepMessage,
  type TickMessage,
} from "../../../shared/messages/agent-step.ts";

const step: StepMessage = { runId: "run-1", round: 2 };
const tick: TickMessage = { tick: "2026-11-29T12:01:00.000Z" };
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
    for (const m of [step, tick, confirm] satisfies AgentStepMessage[])
      expect(parseAgentStepMessage(JSON.stringify(m))).toEqual(m);
  });

  it("a tick wins over a step, and a confirmation over a step, whatever else the body carries", () => {
    expect(parseAgentStepMessage(JSON.stringify({ ...step, ...tick }))).toEqual(tick);
    expect(parseAgentStepMessage(JSON.stringify({ ...step, ...confirm }))).toEqual(confirm);
    // An invalid confirmation does not hide a valid step beside it.
    expect(parseAgentStepMessage(JSON.stringify({ ...step, confirm: { code: "" } }))).toEqual(step);
  });

  it("refuses what no producer may send", () => {
    for (const body of [
      "not json",
      "{}",
      JSON.stringify({ runId: "run-1", round: 0 }),
      JSON.stringify({ runId: "", round: 1 }),
      JSON.stringify({ runId: "run-1", round: 1001 }),
      JSON.stringify({ tick: "yesterday" }),
      JSON.stringify({ confirm: { ...confirm.confirm, action: "maybe" } }),
      JSON.stringify({ confirm: { ...confirm.confirm, hop: -1 } }),
    ])
      expect(parseAgentStepMessage(body), body).toBeNull();
  });
});
