import { describe, expect, it } from "vitest";
import { toolContextFactory } from "../../../shared/agent/loop/tool-context.ts";
import { confirmNoticeRequest } from "../../../shared/agent/plans/confirm-notice.ts";
import { budgetNoticeRequest } from "../../../shared/agent/runs/budget-notice.ts";
import { parseConfig } from "../../../shared/config/load.ts";
import type { ConfirmPayload } from "../../../shared/payloads/agent-step.ts";
import type { OutboundRequest } from "../../../shared/payloads/outbound.ts";
import type { FactStore, Mailbox } from "../../../shared/tool-framework/context.ts";
import { AGENT, agent, replyRun, SENDER, toolkit } from "../../fakes/builders.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { kit } from "./dispatch-harness.ts";

const CONFIG = parseConfig({
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "unused.json", egress: "internal" }],
});

describe("what the engine asks the outbound function to send", () => {
  it("a budget notice goes to the proven sender, once a day (its request id is the sender and the day)", () => {
    const at = (iso: string) =>
      budgetNoticeRequest(replyRun(), agent(), "sender-runs-per-day", new Date(iso));
    expect(at("2026-11-29T08:00:00Z")).toMatchObject({
      agent: AGENT,
      mode: "new",
      to: [SENDER],
      kind: "notice",
    });
    expect(at("2026-11-29T08:00:00Z")?.requestId).toBe(at("2026-11-29T23:59:00Z")?.requestId);
    expect(at("2026-11-29T08:00:00Z")?.requestId).not.toBe(at("2026-11-30T00:00:00Z")?.requestId);
    expect(
      budgetNoticeRequest(replyRun({ sender: null }), agent(), "agent-runs-per-day", new Date()),
    ).toBeNull();
  });

  it("a confirm notice answers the reply once, from the agent, one hop further, naming the code", () => {
    const msg: ConfirmPayload = {
      code: "K7Q2M9XT4Z",
      action: "unclear",
      understood: "nothing",
      replyId: "ses-2",
      hop: 3,
      sender: "boss@example.com",
      agent: AGENT,
      agentOriginated: false,
    };
    const notice = confirmNoticeRequest(msg, "confirm-no-decision");
    expect(notice).toMatchObject({
      agent: AGENT,
      to: ["boss@example.com"],
      correlationId: "ses-2",
      notice: { reason: "confirm-no-decision", inboundHop: 3, code: "K7Q2M9XT4Z" },
    });
    expect(confirmNoticeRequest(msg, "confirm-expired").requestId).toBe(notice.requestId);
    expect(confirmNoticeRequest({ ...msg, replyId: "ses-3" }, "confirm-no-decision").requestId).not.toBe(
      notice.requestId,
    );
  });

  it("same eyes for what a send carries: an attachment id outside the call's mailbox is refused, whichever tool asks", async () => {
    const sent: OutboundRequest[] = [];
    const asked: string[] = [];
    const make = toolContextFactory({
      config: CONFIG,
      logger: recordingLogger(),
      facts: () => ({}) as FactStore,
      // The call's mailbox resolves only the run's own attachment.
      mailbox: () =>
        ({
          attachment: async (id: string) => {
            asked.push(id);
            return id === "att-own"
              ? {
                  meta: { id, filename: "a.pdf", contentType: "application/pdf", size: 3 },
                  bytes: new Uint8Array(3),
                }
              : null;
          },
        }) as unknown as Mailbox,
      sendOutbound: async (r) => void sent.push(r),
      channel: { close: async () => {}, isClosed: async () => false },
      outboundRules: async () => [],
      replyParticipants: async () => null,
    });
    const ctx = make(
      replyRun(),
      agent(),
      1,
      { id: "c1", name: "operator_mailer", input: {} },
      "run-1:1:c1",
      [],
    );
    const reply = { mode: "reply" as const, to: [], cc: [], bcc: [], body: "hi" };
    expect(await ctx.deliver({ ...reply, attachmentIds: ["att-own", "att-carols"] })).toEqual({
      ok: false,
      reason: "attachment-not-found",
      detail: 'No attachment with id "att-carols" here.',
    });
    expect(sent).toEqual([]);
    expect(await ctx.deliver({ ...reply, attachmentIds: ["att-own"] })).toMatchObject({ ok: true });
    expect(sent).toHaveLength(1);
    expect(asked).toEqual(["att-own", "att-carols", "att-own"]);
  });

  it("G18: a call's reach is any host while the run's channels are open, then only its toolkits' egressHosts", async () => {
    let closed = false;
    const make = toolContextFactory({
      config: CONFIG,
      logger: recordingLogger(),
      facts: () => ({}) as FactStore,
      mailbox: () => ({}) as Mailbox,
      sendOutbound: async () => undefined,
      channel: { close: async () => {}, isClosed: async () => closed },
      outboundRules: async () => [],
      replyParticipants: async () => null,
    });
    const call = { id: "c1", name: "web_fetch", input: {} };
    const kits = [toolkit("web", ["web_fetch"], { egressHosts: ["docs.example"] })];
    const ctx = make(replyRun(), agent(), 1, call, "run-1:1:c1", kits);
    expect(await ctx.reach?.("evil.example")).toBe(true);
    closed = true;
    expect(await ctx.reach?.("evil.example")).toBe(false);
    expect(await ctx.reach?.("DOCS.example")).toBe(true);
    // Another toolkit's allow-list does not carry over to a call it did not grant.
    expect(await make(replyRun(), agent(), 1, call, "run-1:1:c1", []).reach?.("docs.example")).toBe(false);
  });

  it("a tool's context is frozen, bound to the run's agent and thread; a send is keyed by the call (G12, G17)", async () => {
    const sent: OutboundRequest[] = [];
    const scopes: string[] = [];
    const make = toolContextFactory({
      config: CONFIG,
      logger: recordingLogger(),
      facts: (a, scope) => {
        scopes.push(`facts ${a} ${scope}`);
        return {} as FactStore;
      },
      mailbox: (s) => {
        scopes.push(`mailbox ${s.agent} ${s.threadId} ${s.runId} ${JSON.stringify(s.scope)}`);
        return {} as Mailbox;
      },
      sendOutbound: async (r) => void sent.push(r),
      channel: { close: async () => {}, isClosed: async () => false },
      outboundRules: async () => [],
      replyParticipants: async () => null,
    });
    const call = { id: "c1", name: "send_email", input: {} };
    const ctx = make(replyRun(), agent(), 2, call, "run-1:2:c1", []);
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(ctx).toMatchObject({ runId: "run-1", round: 2, callId: "c1", idempotencyKey: "run-1:2:c1" });
    const reply = { mode: "reply" as const, to: [], cc: [], bcc: [], body: "hi", attachmentIds: [] };
    const first = await ctx.deliver(reply);
    const again = await make(replyRun(), agent(), 2, call, "run-1:2:c1", []).deliver(reply);
    expect(first).toEqual(again);
    expect(sent[0]).toMatchObject({ agent: AGENT, correlationId: "ses-1", runId: "run-1", body: "hi" });
    const scheduled = replyRun({
      trigger: {
        kind: "responsibility",
        responsibility: {
          id: "d",
          agent: AGENT,
          schedule: "rate(1 day)",
          prompt: "p",
          enabled: true,
          archiveScope: "none",
        },
      },
    });
    make(scheduled, agent(), 1, call, "k", []);
    // A staff toolkit that granted this call widens its reads to the agent's archive.
    make(replyRun(), agent(), 2, call, "k2", [kit("staff", ["search_emails"], { archiveScope: "agent" })]);
    const sender = JSON.stringify({ kind: "sender", sender: SENDER });
    expect(scopes).toEqual([
      `mailbox ${AGENT} t-1 run-1 ${sender}`,
      `facts ${AGENT} t-1`,
      `mailbox ${AGENT} t-1 run-1 ${sender}`,
      `facts ${AGENT} t-1`,
      `mailbox ${AGENT} null run-1 ${JSON.stringify({ kind: "none" })}`,
      `facts ${AGENT} run-1`,
      `mailbox ${AGENT} t-1 run-1 ${JSON.stringify({ kind: "agent", sender: SENDER })}`,
      `facts ${AGENT} t-1`,
    ]);
  });
});
