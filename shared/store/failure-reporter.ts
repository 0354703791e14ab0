import type { Logger } from "../logger.ts";
import { capDetail, FAILURE_EVENT, type FailureSink, logFailure } from "../ports/index.ts";
import type { FailureLog } from "./failure-log.ts";
import type { RunEventRepo } from "./run-event-repo.ts";
import type { RunRepo } from "./run-repo.ts";

/**
 * G19 over the stores: a failure becomes one log line (the metric filter of its class counts it, and alarms), an
 * entry in the failure feed (`postern runs failures`, the console), and, when it belongs to a run, a trace event
 * and a mark on the run's row. The log line comes first: it is what pages someone, and needs no store.
 */
export function failureReporter(
  /** A function's stores (makeStores), or the three it writes. */
  stores: {
    readonly failures: Pick<FailureLog, "record">;
    readonly runs: Pick<RunRepo, "markFailure">;
    readonly runEvents: Pick<RunEventRepo, "append">;
  },
  logger: Logger,
  now: () => Date,
): FailureSink {
  return {
    async report(f) {
      logFailure(logger, f);
      const at = now();
      await stores.failures.record(f, at);
      if (f.runId === undefined) return;
      const detail = capDetail(f.detail);
      await stores.runEvents.append(f.runId, {
        type: FAILURE_EVENT,
        at: at.toISOString(),
        // A failure belongs to no model round: a send fails after its round, a card after the run.
        round: 0,
        data: {
          class: f.class,
          reason: f.reason,
          ...(detail === undefined ? {} : { detail }),
          ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
          ...(f.senderNotice === undefined ? {} : { senderNotice: f.senderNotice }),
        },
      });
      await stores.runs.markFailure(f.runId, {
        class: f.class,
        reason: f.reason,
        at: at.toISOString(),
        ...(f.requestId === undefined ? {} : { requestId: f.requestId }),
      });
    },
  };
}
