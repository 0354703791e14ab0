import type { AgentItem, ResponsibilityItem } from "../../admin/index.ts";
import { PosternError } from "../../errors.ts";
import { looksLikeAddress, normaliseUntrusted, renderMessage, renderUntrusted } from "../../gate/index.ts";
import { CURRENT_MAIL_CHARS, HISTORY_MAIL_CHARS, shownBody } from "../../mail/index.ts";
import { bodyText, type MessageRecord } from "../../ports/index.ts";
import { seenBy } from "../mailbox/mail-scope.ts";
import type { ContextBuilder, LoadedRun, Transcript } from "../ports.ts";
import { systemPrompt } from "./standing-rules.ts";

export interface ContextSources {
  getMessage(agent: string, id: string): Promise<MessageRecord | null>;
  /** The thread's newest `newest` messages, oldest first. */
  listThread(agent: string, threadId: string, opts: { newest: number }): Promise<readonly MessageRecord[]>;
  getText(key: string): Promise<string | null>;
  responsibility(id: string): ResponsibilityItem | null;
  /** The agent's own earlier tool calls in this thread (other runs), oldest first. */
  activity?(
    agent: string,
    threadId: string,
  ): Promise<readonly { at: string; runId: string; tool: string; ok: boolean; reason?: string }[]>;
  /** Resolver output for this run, already gated and fenced (shared/agent/loop/context-resolvers.ts). */
  resolve?(run: LoadedRun, agent: AgentItem): Promise<readonly string[]>;
}

/** Earlier messages shown from a thread; older ones are summarised by count. */
const MAX_HISTORY = 10;
/**
 * Messages read from the thread's newest end to find them (a thread is read by key, bounded, whatever
 * the archive's size). More than shown, because some may be the sender's to not see (same eyes) or newer than
 * the message being answered.
 */
const HISTORY_WINDOW = 3 * MAX_HISTORY;

/**
 * Round 1's conversation. Everything people wrote (the mail, the thread history, the agent's own earlier replies,
 * which may quote them) arrives inside the nonce fence (G8); only the operator's responsibility prompt, which the
 * operator wrote, is plain.
 */
export function createContextBuilder(sources: ContextSources): ContextBuilder {
  return {
    async initial(run: LoadedRun, agent: AgentItem): Promise<Omit<Transcript, "lastRound">> {
      const system = systemPrompt(agent);
      const context = (await sources.resolve?.(run, agent)) ?? [];
      if (run.trigger.kind === "responsibility") {
        const r = run.trigger.responsibility;
        const text = [
          ...context,
          `Scheduled responsibility "${r.id}" (${r.schedule}). There is no inbound message.\n\n${r.prompt}`,
        ].join("\n\n");
        return { system, messages: [{ role: "user", content: [{ type: "text", text }] }], untrustedText: "" };
      }
      const current = await sources.getMessage(run.agent, run.trigger.message.id);
      if (!current)
        throw new PosternError(
          "record-missing",
          `run ${run.runId}: message ${run.trigger.message.id} not found`,
        );
      const history = await threadHistory(sources, run, current);
      const blocks: string[] = [...context, ...history.blocks];
      const untrusted: string[] = [...history.untrusted];
      const actions = await earlierActions(sources, run, current.threadId);
      if (actions !== null) blocks.push(actions);
      // Only the body's start is shown (and kept as quote-check text); read_email reads on.
      const body = shownBody(
        current.id,
        (await bodyText(current, sources.getText)) ?? "",
        CURRENT_MAIL_CHARS,
      );
      blocks.push(`New message from ${current.from} (${current.at}); answer it if an answer is needed:`);
      blocks.push(
        renderMessage({
          fromAddress: current.from,
          displayName: current.fromName ?? null,
          subject: current.subject,
          text: body.text,
          html: current.hasHtmlOnly,
          attachments: current.attachments,
          ...noteOf(current, body),
        }),
      );
      // A withheld display name was never shown, so it cannot be quoted as evidence either (G15).
      const shownName = current.fromName && !looksLikeAddress(current.fromName) ? current.fromName : "";
      untrusted.push(current.subject, shownName, body.text);
      return {
        system,
        messages: [{ role: "user", content: [{ type: "text", text: blocks.join("\n\n") }] }],
        untrustedText: normaliseUntrusted(untrusted.join("\n")),
      };
    },
  };
}

/**
 * The thread's earlier messages, the newest MAX_HISTORY the sender may see, each inside the fence (G8), with a note
 * when older ones are left out; the bodies of inbound ones join the text evidence may quote (G15).
 */
async function threadHistory(
  sources: ContextSources,
  run: LoadedRun,
  current: MessageRecord,
): Promise<{ blocks: string[]; untrusted: string[] }> {
  const window = await sources.listThread(run.agent, current.threadId, { newest: HISTORY_WINDOW });
  const thread = seenEarlier(window, current, run.sender?.routingKey ?? null);
  const shownHistory = thread.slice(-MAX_HISTORY);
  const blocks: string[] = [];
  const untrusted: string[] = [];
  if (window.length >= HISTORY_WINDOW) blocks.push("(earlier messages in this thread are not shown)");
  else if (thread.length > shownHistory.length)
    blocks.push(`(${thread.length - shownHistory.length} earlier messages in this thread are not shown)`);
  // Bodies in parallel: one round trip's latency for the whole history, not one per message.
  const bodies = await Promise.all(shownHistory.map((m) => bodyText(m, sources.getText)));
  for (const [i, m] of shownHistory.entries()) {
    // Each earlier body is cut shorter than the current one; read_email reads on.
    const body = shownBody(m.id, bodies[i] ?? "", HISTORY_MAIL_CHARS);
    const label =
      m.direction === "out" ? "Your earlier reply in this thread" : "Earlier message in this thread";
    blocks.push(`${label} (${m.at}):`, renderEarlier(m, body));
    if (m.direction === "in") untrusted.push(body.text);
  }
  return { blocks, untrusted };
}

/**
 * Same eyes: thread memory shows only mail this run's sender could already see (they sent it, or it was
 * sent to them), and nothing newer than the message answered; a thread they joined late, or one with a Cc they
 * were left off, shows no more. A run without a proven sender sees none. Oldest first.
 */
function seenEarlier(
  window: readonly MessageRecord[],
  current: MessageRecord,
  sender: string | null,
): MessageRecord[] {
  return window
    .filter((m) => m.id !== current.id && m.at <= current.at && sender !== null && seenBy(sender, m))
    .sort((a, b) => a.at.localeCompare(b.at));
}

/** An earlier message inside the fence (G8): the agent's own replies too, since they may quote what people wrote. */
function renderEarlier(m: MessageRecord, body: ShownBody): string {
  return m.direction === "out"
    ? renderUntrusted([
        { label: "To", text: m.to.join(", ") },
        { label: "Subject", text: m.subject },
        { label: null, text: body.text },
        ...(body.note !== undefined ? [{ note: body.note }] : []),
      ])
    : renderMessage({
        fromAddress: m.from,
        displayName: m.fromName ?? null,
        subject: m.subject,
        text: body.text,
        html: m.hasHtmlOnly,
        attachments: m.attachments,
        ...noteOf(m, body),
      });
}

type ShownBody = ReturnType<typeof shownBody>;

/** The cut note, unless the body is not shown at all (an HTML-only mail shows no body, G8: nothing to read on). */
function noteOf(m: MessageRecord, body: ShownBody): { note?: string } {
  return body.note !== undefined && !m.hasHtmlOnly ? { note: body.note } : {};
}

/** What this agent did earlier in the thread, in other runs: engine-written lines (tool names and outcomes only). */
async function earlierActions(
  sources: ContextSources,
  run: LoadedRun,
  threadId: string,
): Promise<string | null> {
  const actions = ((await sources.activity?.(run.agent, threadId)) ?? []).filter(
    (a) => a.runId !== run.runId,
  );
  if (actions.length === 0) return null;
  return `Your earlier actions in this thread:\n${actions.map((a) => `- ${a.at} ${a.tool}: ${a.ok ? "ok" : `failed (${a.reason ?? "error"})`}`).join("\n")}`;
}
