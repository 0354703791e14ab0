import { createHash } from "node:crypto";
import type { AccessRule, DeploymentConfig } from "../../config/index.ts";
import { checkOutboundReach } from "../../gate/index.ts";
import type { Logger } from "../../logger.ts";
import type { OutboundRequest, RunStartedBy } from "../../messages/index.ts";
import { fail } from "../../result.ts";
import type { FactStore, Mailbox, ToolContext } from "../../tool-framework/index.ts";
import { reachableWhileClosed } from "../channels/channels.ts";
import { type MailScope, scopeForCall } from "../mailbox/mail-scope.ts";
import type { ChannelState, StepDeps } from "../ports.ts";

/** A stored message a reply answers, as far as its reach matters: the proven sender and the signed To/Cc. */
export interface ReplyParticipants {
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
}

export interface ToolContextPorts {
  readonly config: DeploymentConfig;
  readonly logger: Logger;
  /** Facts of one agent in one scope (its thread, or the run when it has none). */
  facts(agent: string, scope: string): FactStore;
  /**
   * The agent's own mailbox, bound to the run's thread (G12) and read with the call's eyes:
   * `onWiderRead` is called before it returns mail wider than the run's sender could see.
   */
  mailbox(scope: {
    agent: string;
    threadId: string | null;
    runId: string;
    scope: MailScope;
    onWiderRead: () => Promise<void>;
  }): Mailbox;
  /** G18: where a run's closed channels are recorded. */
  readonly channel: ChannelState;
  sendOutbound(request: OutboundRequest): Promise<void>;
  /**
   * The agent's outbound rules (admin table `outboundRules`, validated, fail-closed), read when a send is asked
   * for, so an operator's change applies to the next send.
   */
  outboundRules(agent: string): Promise<readonly AccessRule[]>;
  /** The agent's stored message a reply answers (its automatic participants), or null. */
  replyParticipants(agent: string, messageId: string): Promise<ReplyParticipants | null>;
}

/**
 * One frozen context per tool call (G17): identity, trigger and mailbox come from the run, never from the model's
 * arguments; a send's request id is the call's idempotency key, so a replayed round cannot send twice.
 */
export function toolContextFactory(ports: ToolContextPorts): StepDeps["makeToolContext"] {
  return (run, agent, round, call, key, grantedBy) => {
    const threadId = run.trigger.kind === "message" ? run.trigger.message.threadId : null;
    const mailbox = ports.mailbox({
      agent: agent.address,
      threadId,
      runId: run.runId,
      scope: scopeForCall(run, grantedBy),
      // Reading wider than the sender closes the run's channels (G18), before the wider mail is returned.
      onWiderRead: () => ports.channel.close(run.runId, "archive-read"),
    });
    const ctx: ToolContext = {
      agent,
      sender: run.sender,
      trigger: run.trigger,
      config: ports.config,
      logger: ports.logger,
      correlationId: run.correlationId,
      runId: run.runId,
      round,
      callId: call.id,
      idempotencyKey: key,
      facts: ports.facts(agent.address, threadId ?? run.runId),
      mailbox,
      async reach(host) {
        if (!(await ports.channel.isClosed(run.runId))) return true;
        return reachableWhileClosed(grantedBy, host);
      },
      async deliver(request) {
        // What only the runtime may say about a send is dropped from whatever a tool passes (a tool is code the
        // type system does not bind): the G18 stamp, the confirm card's exemption, `notice` (engine mail,
        // whose outbound path skips the outbound rules) and who started the run (a scheduled run's wider default).
        const {
          channelClosed: _stamp,
          recipientsFrom: _engineOnly,
          kind: _kind,
          startedBy: _origin,
          ...asked
        } = request as typeof request &
          Pick<OutboundRequest, "channelClosed" | "recipientsFrom" | "startedBy">;
        // Who started the run decides the default reach, from the run's trigger, never from the tool.
        // Only a responsibility is a scheduled run; anything else is treated as an outside sender's (narrower).
        const startedBy: RunStartedBy = run.trigger.kind === "responsibility" ? "schedule" : "sender";
        // Outbound reach, enforced here in the runtime rather than in each tool (G12 style): every tool that sends
        // comes through deliver, so a steered model cannot reach an address the operator did not allow by finding
        // another tool. The outbound function checks the same rules again from the admin table.
        // G18: once the run has read wider than its sender, a send may reach only the proven sender and what the
        // outbound rules allow; the request is stamped so the outbound function holds it to the same.
        const closed = await ports.channel.isClosed(run.runId);
        const target =
          asked.mode === "reply" && asked.replyTo
            ? await ports.replyParticipants(agent.address, asked.replyTo.messageId)
            : null;
        const reach = checkOutboundReach({
          rules: await ports.outboundRules(agent.address),
          domains: ports.config.domains,
          ownDomains: ports.config.outbound.ownDomains,
          startedBy,
          agent: agent.address,
          mode: asked.mode,
          to: asked.to,
          cc: asked.cc,
          bcc: asked.bcc,
          ...(target ? { reply: { sender: target.from, to: target.to, cc: target.cc } } : {}),
          channelClosed: closed,
        });
        if (!reach.ok) {
          ports.logger.warn("send refused: recipient not allowed by the outbound rules", {
            agent: agent.address,
            runId: run.runId,
            callId: call.id,
            reason: reach.reason,
            refused: reach.refused,
            channelClosed: closed,
          });
          return fail(reach.reason, reach.detail ?? reach.reason);
        }
        // Same eyes (G12) for what a send carries: every attachment id must resolve through this call's
        // own mailbox (the run's thread, mail its sender could see), whichever tool asks. The outbound function
        // resolves ids again within the agent's mailbox only, so this is where a send is held to the run's scope.
        for (const id of asked.attachmentIds ?? []) {
          if (await mailbox.attachment(id)) continue;
          ports.logger.warn("send refused: attachment not in the run's reach", {
            agent: agent.address,
            runId: run.runId,
            callId: call.id,
            reason: "attachment-not-found",
          });
          return fail("attachment-not-found", `No attachment with id ${JSON.stringify(id)} here.`);
        }
        // The request id is the call's idempotency key: a replayed round cannot send twice.
        const requestId = `send-${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
        await ports.sendOutbound({
          ...asked,
          kind: "agent",
          ...(closed ? { channelClosed: true } : {}),
          startedBy,
          requestId,
          agent: agent.address,
          correlationId: run.correlationId,
          runId: run.runId,
        });
        return { ok: true, requestId };
      },
    };
    return Object.freeze(ctx);
  };
}
