// G19: no silent failure. What a failure that must reach a person is, and the one port every core reports it to.
// The adapter (shared/store/failure-reporter.ts) turns a report into a trace event, a mark on the run's row and
// one log line that a CloudWatch metric filter per class counts and alarms on (infra/constructs/operations.ts).

import type { Logger } from "../logger.ts";

/**
 * The classes of failure, each its own metric and alarm. `send-failed`: mail an agent asked for (a reply, new mail)
 * was never sent, SES refused it or the outbound did; `card-undelivered`: a confirm card (G14), or the mail telling
 * an approver what their approval did, could not be sent; `notice-undelivered`: an engine notice (a refusal, budget
 * or run-failure notice, G6) could not be sent; `run-failed`: a run ended `failed`, so its sender got no answer; `webhook-undelivered`: an event could
 * not be delivered to an operator's endpoint (retries exhausted, its breaker opened, or it could not be queued);
 * `mcp-definition-changed`: an MCP tool's live definition no longer matches its reviewed pin, so it is not offered
 * until an operator reviews it again (G20); `mcp-unavailable`: an MCP server whose tools a run would be offered could
 * not be listed (unreachable, refused, timed out, its credentials unreadable), so none of its tools were offered;
 * `plan-failed`: an approved plan (G14) did not run as approved: an operation failed (the tool returned a failure,
 * threw or timed out, or a gate refused it at apply), its agent was gone, or its stored operations no longer matched
 * the confirmed hash. An approval is not an outcome: the approver, the model and the requester are told what ran.
 */
export const FAILURE_CLASSES = [
  "send-failed",
  "card-undelivered",
  "notice-undelivered",
  "run-failed",
  "webhook-undelivered",
  "mcp-definition-changed",
  "mcp-unavailable",
  "plan-failed",
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** The pipeline function whose log group carries a class's line (the metric filter is per log group). */
export type FailureSource = "verify" | "agentStep" | "outbound" | "deliveryEvents" | "webhooks";

/** Per class: the CloudWatch metric (namespace `Postern`), the function that reports it, what the alarm says. */
export const FAILURE_METRICS: Readonly<
  Record<
    FailureClass,
    {
      readonly metric: string;
      readonly source: FailureSource;
      readonly alarm: string;
      /** Other functions that write this class's line (an event that could not be queued is logged where it arose). */
      readonly alsoFrom?: readonly FailureSource[];
    }
  >
> = {
  "send-failed": {
    metric: "SendFailed",
    source: "outbound",
    alarm:
      "Postern: mail an agent sent was refused (SES or the outbound); `postern runs failures`, docs/reasons.md",
  },
  "card-undelivered": {
    metric: "ConfirmCardUndelivered",
    source: "outbound",
    alarm:
      "Postern: a confirm card could not be sent to its approvers; `postern runs failures`, docs/reasons.md",
  },
  "notice-undelivered": {
    metric: "NoticeUndelivered",
    source: "outbound",
    alarm: "Postern: an engine notice could not be sent; `postern runs failures`, docs/reasons.md",
  },
  "run-failed": {
    metric: "RunFailed",
    source: "agentStep",
    alarm: "Postern: a run failed and its sender got no answer; `postern runs failures`, docs/reasons.md",
  },
  "webhook-undelivered": {
    metric: "WebhookUndelivered",
    source: "webhooks",
    // Every function that emits events writes `event-not-queued` when the events queue refuses one.
    alsoFrom: ["verify", "agentStep", "outbound", "deliveryEvents"],
    alarm:
      "Postern: an event could not be delivered to a webhook endpoint; `postern webhooks show <id>`, docs/events.md",
  },
  "mcp-definition-changed": {
    metric: "McpDefinitionChanged",
    source: "agentStep",
    alarm:
      "Postern: an MCP tool changed since review and is withheld; `postern mcp review <server>`, docs/mcp.md",
  },
  "mcp-unavailable": {
    metric: "McpUnavailable",
    source: "agentStep",
    alarm:
      "Postern: an MCP server could not be listed and its tools were not offered; `postern mcp review <server>`, docs/mcp.md",
  },
  "plan-failed": {
    metric: "PlanFailed",
    source: "agentStep",
    alarm:
      "Postern: an approved plan did not run as approved (an operation failed); `postern runs failures`, docs/reasons.md",
  },
};

/**
 * The log line an operator alarms on when a send's outcome is unknown (a CloudWatch metric filter on this exact
 * message): here, not in the outbound core, so the stack's synth reads a string without loading the core.
 */
export const UNKNOWN_OUTCOME_LOG = "outbound-send-outcome-unknown";

/** The message of the one log line every failure writes; the metric filters match it and `failureClass`. */
export const FAILURE_LOG = "postern-failure";

/** The trace event a failure adds to its run (shared/trace/timeline.ts renders it). */
export const FAILURE_EVENT = "failure";

export interface FailureReport {
  readonly class: FailureClass;
  /** A stable reason code (docs/reasons.md): the send state's reason, or the run's finish reason. */
  readonly reason: string;
  /** The provider's or SES's own message, or the engine's detail (which field, which address). Capped. */
  readonly detail?: string;
  readonly agent: string;
  /** The run the failure belongs to, when there is one (a refusal notice from verify has none). */
  readonly runId?: string;
  /** The outbound request, for a send class. */
  readonly requestId?: string;
  readonly correlationId?: string;
  /** When the run-failed notice to the sender was considered: `sent`, `already-today`, or why none (G6). */
  readonly senderNotice?: SenderNoticeOutcome;
}

export type SenderNoticeOutcome = "sent" | "already-today" | "no-sender" | "automatic-mail";

/** Where failures go. One call per failure; a crash before it is a crash like any other (the DLQ alarm). */
export interface FailureSink {
  report(failure: FailureReport): Promise<void>;
}

/** One failure as the feed keeps it (G19): what `postern runs failures` and the console's Failures page list. */
export interface FailureEntry {
  readonly at: string;
  readonly class: string;
  readonly reason: string;
  readonly detail?: string;
  readonly agent: string;
  readonly runId?: string;
  readonly requestId?: string;
  readonly correlationId?: string;
  readonly senderNotice?: string;
}

/** The failure feed read back, per UTC day (shared/store/failure-log.ts). */
export interface FailureReader {
  /** Newest first, over the last `days` UTC days up to `now` (default 7), at most `limit` (default 50). */
  listRecent(opts: {
    readonly now: Date;
    readonly days?: number;
    readonly limit?: number;
  }): Promise<FailureEntry[]>;
}

/** Provider and SES messages can be long (and an SDK error's can hold a stack): the trace keeps a line. */
export const MAX_FAILURE_DETAIL = 500;

export function capDetail(detail: string | undefined): string | undefined {
  if (detail === undefined) return undefined;
  const line = detail.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
  return line.length > MAX_FAILURE_DETAIL ? `${line.slice(0, MAX_FAILURE_DETAIL)}…` : line;
}

/** The log line itself (what the metric filter counts), for the adapter and for a sink that only logs. */
export function logFailure(logger: Logger, f: FailureReport): void {
  const detail = capDetail(f.detail);
  logger.error(FAILURE_LOG, {
    failureClass: f.class,
    reason: f.reason,
    agent: f.agent,
    ...(detail === undefined ? {} : { detail }),
    ...(f.runId === undefined ? {} : { runId: f.runId }),
    ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
    ...(f.correlationId === undefined ? {} : { correlationId: f.correlationId }),
    ...(f.senderNotice === undefined ? {} : { senderNotice: f.senderNotice }),
    action: "see docs/reasons.md for this reason code; `postern runs failures` lists recent failures",
  });
}
