import type { Usage } from "../model/index.ts";
import type { StoredRunEvent } from "../ports/index.ts";
import { FAILURE_EVENT } from "../ports/index.ts";

/**
 * A run's trace in the order things happened (run-event `seq`, the append time, unique per run), as
 * both the CLI (`postern runs show`) and the console render it. Plan events carry round 0 because they belong to no
 * model round (a card is sealed after the last round, an approval arrives hours later): they stay where they
 * happened in time instead of being grouped before round 1. A `confirm` tool's call is a proposal, not a success,
 * and reads "proposed"; the approved operation reads "applied" where it was applied.
 */

export type TimelineStatus = "ok" | "info" | "failed" | "refused" | "proposed" | "applied" | "cancelled";

export interface TimelineItem {
  readonly seq: number;
  readonly at: string;
  readonly round: number;
  /** `round`: inside a model round; `plan`: the run's plan (G14); `run`: the run's own end. */
  readonly scope: "round" | "plan" | "run";
  readonly type: string;
  readonly status: TimelineStatus;
  /** One line, engine-written from the event's fields (tool names, reason codes, counts). */
  readonly text: string;
  /** The event's data, for a detail view (escaped by whoever renders it). */
  readonly data: Record<string, unknown>;
}

/** A tree of the timeline: consecutive events of one round under one node, plan and run events between them. */
export type TimelineNode =
  | {
      readonly kind: "round";
      readonly round: number;
      readonly continued: boolean;
      readonly items: TimelineItem[];
    }
  | { readonly kind: "item"; readonly item: TimelineItem };

export interface TimelineContext {
  /** Call ids that became plan operations (the run's plan), so their `tool-result` reads "proposed". */
  readonly proposedCallIds?: ReadonlySet<string>;
  /** Whether a tool needs confirmation (G14); used when the plan itself is not at hand. */
  readonly isConfirmTool?: (name: string) => boolean;
}

const s = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v ?? null));
const list = (v: unknown): string => (Array.isArray(v) ? v.map(s).join(", ") : "");

/**
 * How the run's mail was addressed, when the signature did not prove it (shared/gate/addressed.ts): such a run
 * writes to its sender only, and the operator reading the trace should know why a reply-all reached nobody else.
 */
function addressingNote(addressing: unknown): string {
  if (addressing === "envelope") return "; addressing unsigned (by the envelope): writes to the sender only";
  if (addressing === "reply")
    return "; addressing unsigned (a reply to the agent's own mail): writes to the sender only";
  if (addressing === "forwarded")
    return "; forwarded through a trusted ARC sealer: writes to the sender only";
  return "";
}

type Described = { status: TimelineStatus; text: string };

function describe(e: StoredRunEvent, ctx: TimelineContext): Described {
  const d = (e.data ?? {}) as Record<string, unknown>;
  const plan = describePlan(e.type, d);
  if (plan !== null) return plan;
  const proposal = (): boolean =>
    ctx.proposedCallIds?.has(s(d.callId)) === true || ctx.isConfirmTool?.(s(d.name)) === true;
  switch (e.type) {
    case "budget-check":
      return d.ok
        ? { status: "ok", text: "budget ok" }
        : { status: "refused", text: `budget exceeded: ${s(d.reason)}` };
    case "model-request":
      // Since budgets were folded into the request, a passed budget check is part of the request (older traces have a budget-check event).
      return {
        status: "info",
        text: `${d.budget === "ok" ? "budget ok; " : ""}model ${s(d.model)} offered [${list(d.tools)}]${addressingNote(d.addressing)}`,
      };
    case "model-turn": {
      const calls = Array.isArray(d.toolCalls)
        ? d.toolCalls.map((c) => s((c as { name?: unknown }).name))
        : [];
      const u = (d.usage ?? {}) as Partial<Usage>;
      // Cache reads and writes apart from full-price input (prompt caching, shared/model/prompt-cache.ts).
      const cached = `${u.cacheReadTokens ? ` / cache read ${u.cacheReadTokens}` : ""}${u.cacheWriteTokens ? ` / cache write ${u.cacheWriteTokens}` : ""}`;
      return {
        status: "info",
        text: `model turn: ${calls.length > 0 ? `calls ${calls.join(", ")}` : "no tool calls"} (stop ${s(d.stopReason)}, tokens in ${u.inputTokens ?? 0}${cached} / out ${u.outputTokens ?? 0})`,
      };
    }
    case "model-failure":
      // `lastTry`: the queue will not deliver the round again, so a retryable failure ends the run.
      return {
        status: "failed",
        text: `model failure ${s(d.reason)}${d.lastTry ? " (last try: the run fails)" : d.retryable ? " (will retry)" : ""}`,
      };
    case "tool-call":
      return proposal()
        ? { status: "proposed", text: `tool ${s(d.name)} proposed [${list(d.toolkits)}]` }
        : { status: "info", text: `tool ${s(d.name)} called [${list(d.toolkits)}]` };
    case "tool-result":
      if (!d.ok) return { status: "failed", text: `tool ${s(d.name)} failed: ${s(d.reason)}` };
      return proposal()
        ? { status: "proposed", text: `tool ${s(d.name)} proposed: not run, waiting for an approver` }
        : { status: "ok", text: `tool ${s(d.name)} ok` };
    case "tool-refused":
      return { status: "refused", text: `tool ${s(d.name)} REFUSED: ${s(d.reason)}` };
    case "tool-replayed":
      return { status: "info", text: `tool ${s(d.name)} replayed from its recorded result` };
    case "round-resumed":
      return { status: "info", text: "round resumed after a redelivery" };
    case "round-done":
      return { status: "info", text: `round done; next ${s(d.next)}` };
    case "run-finished":
      return {
        status: d.state === "completed" ? "ok" : "failed",
        text: `run finished: ${s(d.state)} (${s(d.reason)})`,
      };
    case FAILURE_EVENT:
      return { status: "failed", text: failureText(d) };
    default:
      return { status: "info", text: `${e.type} ${clipped(JSON.stringify(d), 200)}` };
  }
}

/** A plan's events (G14), from its card to its end; null for any other event. */
function describePlan(type: string, d: Record<string, unknown>): Described | null {
  switch (type) {
    case "plan-card-sent":
      // Queued, not delivered: the outbound may still refuse it, and then a `failure` event follows (G19).
      return {
        status: "info",
        text: `plan: confirm card queued for ${s(d.approvers)} approver(s), ${s(d.operations)} operation(s)`,
      };
    case "plan-unconfirmable":
      return { status: "failed", text: `plan: cannot be confirmed (${s(d.reason)})` };
    case "confirm-refused":
      return { status: "refused", text: `plan: confirmation refused: ${s(d.reason)} (by ${s(d.by)})` };
    case "confirm-unclear":
      return {
        status: "info",
        text: `plan: reply understood nothing to do (${s(d.understood)}, by ${s(d.by)})`,
      };
    case "plan-expired":
      return { status: "failed", text: "plan: expired before anyone decided" };
    case "plan-cancelled":
      return { status: "cancelled", text: `plan: cancelled by ${s(d.by)}` };
    case "plan-tampered":
      return {
        status: "failed",
        text: "plan: NOT applied: stored operations no longer match the confirmed hash",
      };
    case "plan-op": {
      // Numbered as the card numbers them, from 1 (traces before `number` carry only the 0-based `index`).
      const n = typeof d.number === "number" ? d.number : typeof d.index === "number" ? d.index + 1 : "?";
      const op = `plan: operation ${n}${typeof d.of === "number" ? ` of ${d.of}` : ""} ${s(d.tool)}`;
      if (d.status === "not-run")
        return { status: "cancelled", text: `${op} not run: an earlier operation failed` };
      return d.ok
        ? { status: "applied", text: `${op} applied` }
        : { status: "failed", text: `${op} failed: ${s(d.reason)}` };
    }
    case "plan-resumed":
      return { status: "info", text: `plan: apply resumed by the redelivered approval of ${s(d.by)}` };
    case "plan-finished":
      return d.state === "applied"
        ? {
            status: "applied",
            text: `plan: applied, ${s(d.succeeded)} of ${s(d.operations)} operation(s) succeeded`,
          }
        : {
            status: "failed",
            text: `plan: FAILED (${s(d.reason)}): ${s(d.succeeded)} of ${s(d.operations)} operation(s) succeeded`,
          };
    default:
      return null;
  }
}

/** At most `max` characters; a cut one ends in `…`, so a reader never takes part of the data for all of it. */
const clipped = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

const FAILURE_WHAT: Record<string, string> = {
  "send-failed": "mail NOT sent",
  "card-undelivered": "confirm card NOT sent",
  "notice-undelivered": "notice NOT sent",
  "run-failed": "run failed, the sender got no answer",
  "plan-failed": "approved plan did NOT run as approved",
};

const NOTICE_TEXT: Record<string, string> = {
  sent: "the sender is told",
  "already-today": "the sender was already told today",
  "no-sender": "no sender to tell",
  "automatic-mail": "automatic mail: the sender is not told",
};

/** A failure (G19): what did not happen, its reason code, and SES's or the provider's message. */
function failureText(d: Record<string, unknown>): string {
  const what = FAILURE_WHAT[s(d.class)] ?? s(d.class);
  const detail = typeof d.detail === "string" ? `: ${d.detail}` : "";
  const notice =
    typeof d.senderNotice === "string" ? `; ${NOTICE_TEXT[d.senderNotice] ?? d.senderNotice}` : "";
  const request = typeof d.requestId === "string" ? ` [${d.requestId}]` : "";
  return `FAILURE: ${what} (${s(d.reason)}${detail})${request}${notice}; operator alerted`;
}

const scopeOf = (e: StoredRunEvent): TimelineItem["scope"] =>
  e.type === "run-finished" || e.type === FAILURE_EVENT ? "run" : e.round === 0 ? "plan" : "round";

/** Events in time order (by `seq`), each described. */
export function timeline(events: readonly StoredRunEvent[], ctx: TimelineContext = {}): TimelineItem[] {
  return [...events]
    .sort((a, b) => a.seq - b.seq)
    .map((e) => ({
      seq: e.seq,
      at: e.at,
      round: e.round,
      scope: scopeOf(e),
      type: e.type,
      ...describe(e, ctx),
      data: (e.data ?? {}) as Record<string, unknown>,
    }));
}

/** Group consecutive round events under their round; plan and run events sit between rounds, in time order. */
export function timelineTree(items: readonly TimelineItem[]): TimelineNode[] {
  const nodes: TimelineNode[] = [];
  const seen = new Set<number>();
  let open: Extract<TimelineNode, { kind: "round" }> | null = null;
  for (const item of items) {
    if (item.scope !== "round") {
      open = null;
      nodes.push({ kind: "item", item });
      continue;
    }
    if (!open || open.round !== item.round) {
      open = { kind: "round", round: item.round, continued: seen.has(item.round), items: [] };
      seen.add(item.round);
      nodes.push(open);
    }
    open.items.push(item);
  }
  return nodes;
}
