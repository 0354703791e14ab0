import type { ToolContext } from "../../tool-framework/index.ts";
import { reachableWhileClosed } from "../channels/channels.ts";
import { scopeForCall } from "../mailbox/mail-scope.ts";
import type { StepDeps } from "../ports.ts";
import { deliverFor } from "./deliver.ts";
import type { ToolContextPorts } from "./tool-context-ports.ts";

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
      deliver: deliverFor(ports, { run, agent, callId: call.id, key, mailbox }),
    };
    return Object.freeze(ctx);
  };
}
