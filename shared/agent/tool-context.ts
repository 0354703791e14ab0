import { createHash } from "node:crypto";
import type { DeploymentConfig } from "../config/schema.ts";
import type { Logger } from "../logger.ts";
import type { OutboundRequest } from "../messages/outbound.ts";
import type { FactStore, Mailbox, ToolContext } from "../tool-framework/context.ts";
import { type MailScope, scopeForCall } from "./mail-scope.ts";
import type { EgressChannel, StepDeps } from "./ports.ts";

export interface ToolContextPorts {
  readonly config: DeploymentConfig;
  readonly logger: Logger;
  /** Facts of one agent in one scope (its thread, or the run when it has none). */
  facts(agent: string, scope: string): FactStore;
  /**
   * The agent's own mailbox, bound to the run's thread (G12) and read with the call's eyes (issue 14):
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
  readonly channel: EgressChannel;
  sendOutbound(request: OutboundRequest): Promise<void>;
}

/**
 * One frozen context per tool call (G17): identity, trigger and mailbox come from the run, never from the model's
 * arguments; a send's request id is the call's idempotency key, so a replayed round cannot send twice.
 */
export function toolContextFactory(ports: ToolContextPorts): StepDeps["makeToolContext"] {
  return (run, agent, round, call, key, grantedBy) => {
    const threadId = run.trigger.kind === "message" ? run.trigger.message.threadId : null;
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
      mailbox: ports.mailbox({
        agent: agent.address,
        threadId,
        runId: run.runId,
        scope: scopeForCall(run, grantedBy),
        // Reading wider than the sender closes the run's channels (G18), before the wider mail is returned.
        onWiderRead: () => ports.channel.close(run.runId, "archive-read"),
      }),
      async deliver(request) {
        // The request id is the call's idempotency key: a replayed round cannot send twice.
        const requestId = `send-${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
        await ports.sendOutbound({
          ...request,
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
