import { createHash } from "node:crypto";
import type { AgentItem } from "../../admin/index.ts";
import { checkOutboundReach } from "../../gate/index.ts";
import type { OutboundRequest, RunStartedBy } from "../../payloads/index.ts";
import { fail } from "../../result.ts";
import type { Mailbox, ToolContext } from "../../tool-framework/index.ts";
import type { LoadedRun } from "../ports.ts";
import type { ToolContextPorts } from "./tool-context-ports.ts";

/** What one tool call's sends are bound to: its run, its agent, its idempotency key and its mailbox. */
export interface CallScope {
  readonly run: LoadedRun;
  readonly agent: AgentItem;
  readonly callId: string;
  readonly key: string;
  readonly mailbox: Mailbox;
}

type Asked = Parameters<ToolContext["deliver"]>[0];
type DeliverResult = Awaited<ReturnType<ToolContext["deliver"]>>;

/**
 * A tool call's `deliver`: the outbound reach (G12, G18) and the same-eyes rule for attachments, checked in the
 * runtime for every tool that sends; the send then queued under the call's idempotency key.
 */
export function deliverFor(ports: ToolContextPorts, c: CallScope): ToolContext["deliver"] {
  const { run, agent, key } = c;
  return async (request) => {
    const asked = askedOnly(request);
    // Who started the run decides the default reach, from the run's trigger, never from the tool.
    // Only a responsibility is a scheduled run; anything else is treated as an outside sender's (narrower).
    const startedBy: RunStartedBy = run.trigger.kind === "responsibility" ? "schedule" : "sender";
    const closed = await ports.channel.isClosed(run.runId);
    const refused =
      (await outsideReach(ports, c, asked, startedBy, closed)) ?? (await unseenAttachment(ports, c, asked));
    if (refused) return refused;
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
  };
}

/**
 * What only the runtime may say about a send is dropped from whatever a tool passes (a tool is code the type
 * system does not bind): the G18 stamp, the confirm card's exemption, `notice` (engine mail, whose outbound path
 * skips the outbound rules) and who started the run (a scheduled run's wider default).
 */
function askedOnly(request: Asked): Omit<Asked, "kind"> {
  const {
    channelClosed: _stamp,
    recipientsFrom: _engineOnly,
    kind: _kind,
    startedBy: _origin,
    ...asked
  } = request as Asked & Pick<OutboundRequest, "channelClosed" | "recipientsFrom" | "startedBy">;
  return asked;
}

/**
 * Outbound reach, enforced here in the runtime rather than in each tool (G12 style): every tool that sends comes
 * through deliver, so a steered model cannot reach an address the operator did not allow by finding another tool.
 * The outbound function checks the same rules again from the admin table. G18: once the run has read wider than
 * its sender, a send may reach only the proven sender and what the outbound rules allow; the request is stamped
 * so the outbound function holds it to the same. The refusal, or null when the send may go.
 */
async function outsideReach(
  ports: ToolContextPorts,
  c: CallScope,
  asked: Omit<Asked, "kind">,
  startedBy: RunStartedBy,
  closed: boolean,
): Promise<DeliverResult | null> {
  const { agent, run } = c;
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
  if (reach.ok) return null;
  ports.logger.warn("send refused: recipient not allowed by the outbound rules", {
    agent: agent.address,
    runId: run.runId,
    callId: c.callId,
    reason: reach.reason,
    refused: reach.refused,
    channelClosed: closed,
  });
  return fail(reach.reason, reach.detail ?? reach.reason);
}

/**
 * Same eyes (G12) for what a send carries: every attachment id must resolve through this call's own mailbox (the
 * run's thread, mail its sender could see), whichever tool asks. The outbound function resolves ids again within
 * the agent's mailbox only, so this is where a send is held to the run's scope. The refusal, or null.
 */
async function unseenAttachment(
  ports: ToolContextPorts,
  c: CallScope,
  asked: Omit<Asked, "kind">,
): Promise<DeliverResult | null> {
  for (const id of asked.attachmentIds ?? []) {
    if (await c.mailbox.attachment(id)) continue;
    ports.logger.warn("send refused: attachment not in the run's reach", {
      agent: c.agent.address,
      runId: c.run.runId,
      callId: c.callId,
      reason: "attachment-not-found",
    });
    return fail("attachment-not-found", `No attachment with id ${JSON.stringify(id)} here.`);
  }
  return null;
}
