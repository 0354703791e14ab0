import { describe, expect, it } from "vitest";
import {
  cardAddressees,
  cardSubject,
  PLAN_TTL_MS,
  sendPlanCard,
} from "../../../shared/agent/plans/plan-card.ts";
import type { OutboundRequest } from "../../../shared/payloads/outbound.ts";
import { noWebhooks } from "../../../shared/ports/index.ts";
import type { PlanRecord } from "../../../shared/ports/plans.ts";
import { AGENT, admin, agent, replyRun, SENDER } from "../../fakes/builders.ts";
import { memoryPlanStore } from "../../fakes/plan-store.ts";
import { recordingSink } from "../../fakes/trace-sink.ts";

const NOW = new Date("2026-11-29T12:00:00Z");
const op = (toolkit: string) => ({
  callId: "c1",
  tool: "refund",
  input: { order: "1234" },
  summary: "Refund",
  toolkits: [toolkit],
});
const kit = (id: string, confirmBySender = false) => ({
  id,
  tools: ["refund"],
  agents: [AGENT],
  senderRules: [],
  allowScheduled: false,
  system: false,
  confirmBySender,
  archiveScope: "sender" as const,
  egressHosts: [],
});

/** The plan store fake holding `plan` as the store would (seeded item for item, so empty plans are possible too). */
function planBook(plan: PlanRecord | null) {
  const plans = memoryPlanStore();
  if (plan)
    plans.state.items.set(`plan#${plan.runId}|plan`, {
      pk: `plan#${plan.runId}`,
      sk: "plan",
      ...plan,
      opIds: plan.ops.map((o) => o.callId),
    });
  return plans;
}

function flow(plan: PlanRecord | null, snapshot = admin()) {
  const plans = planBook(plan);
  const events = recordingSink();
  const sent: OutboundRequest[] = [];
  const afterRun = sendPlanCard({
    webhooks: noWebhooks,
    plans,
    loadAdmin: async () => snapshot,
    trace: events,
    sendOutbound: async (r) => void sent.push(r),
    now: () => NOW,
    // Who asked is card-requester.test.ts's subject.
    requester: async () => null,
  });
  return { afterRun, plans, events, sent };
}

describe("the plan card (G14)", () => {
  it("is addressed to the listed approvers of the plan's toolkits, as listed, and to the sender when they may confirm", () => {
    const snapshot = admin({
      toolkits: [kit("refunds", true)],
      approvers: [
        { toolkit: "refunds", address: "boss@example.com" },
        { toolkit: "other", address: "someone@example.com" },
      ],
    });
    expect(cardAddressees(["boss@example.com", SENDER], replyRun(), snapshot)).toEqual([
      "boss@example.com",
      SENDER,
    ]);
    expect(cardAddressees(["boss@example.com"], replyRun(), snapshot)).toEqual(["boss@example.com"]);
  });

  it("says how many operations and shows the code grouped", () => {
    expect(cardSubject(1, "K7Q2M9XT4Z")).toBe("Approval needed (1 operation) - code K7Q2 M9XT 4Z");
    expect(cardSubject(3, "K7Q2M9XT4Z")).toMatch(/^Approval needed \(3 operations\)/);
  });

  it("seals an open plan and mails one card per run to whoever may confirm", async () => {
    const snapshot = admin({
      toolkits: [kit("refunds")],
      approvers: [{ toolkit: "refunds", address: "boss@example.com" }],
    });
    const f = flow({ runId: "run-1", agent: AGENT, state: "open", ops: [op("refunds")] }, snapshot);
    await f.afterRun(replyRun(), agent(), "completed");
    const sealed = await f.plans.get("run-1");
    expect(sealed).toMatchObject({
      state: "pending",
      expiresAtIso: new Date(NOW.getTime() + PLAN_TTL_MS).toISOString(),
    });
    expect(f.sent).toHaveLength(1);
    expect(f.sent[0]).toMatchObject({
      requestId: "card-run-1",
      agent: AGENT,
      mode: "new",
      to: ["boss@example.com"],
    });
    expect(f.sent[0]?.body).toContain(sealed?.code?.slice(0, 4));
    expect(f.events.events).toEqual([
      { runId: "run-1", type: "plan-card-sent", round: 0, data: { operations: 1, approvers: 1 } },
    ]);
  });

  it("a plan nobody may confirm is marked unconfirmable and no card goes out", async () => {
    const f = flow(
      { runId: "run-1", agent: AGENT, state: "open", ops: [op("refunds")] },
      admin({ toolkits: [kit("refunds")] }),
    );
    await f.afterRun(replyRun(), agent(), "completed");
    expect((await f.plans.get("run-1"))?.state).toBe("unconfirmable");
    expect(f.sent).toEqual([]);
    expect(f.events.events.map((e) => e.type)).toEqual(["plan-unconfirmable"]);
  });

  it("no plan, an empty one or a decided one: nothing happens", async () => {
    for (const plan of [
      null,
      { runId: "run-1", agent: AGENT, state: "open" as const, ops: [] },
      { runId: "run-1", agent: AGENT, state: "applied" as const, ops: [op("refunds")] },
    ]) {
      const f = flow(plan);
      await f.afterRun(replyRun(), agent(), "completed");
      expect([f.sent, f.events.events, f.plans.calls]).toEqual([[], [], []]);
    }
  });
});
