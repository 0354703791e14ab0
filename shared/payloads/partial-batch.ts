import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import type { KeyedLogger } from "../logger.ts";

/**
 * What a record function says about its record. `retry`: not now (busy, throttled), SQS redelivers it. `reject`:
 * unusable, retrying cannot fix it; it fails every delivery, so after maxReceiveCount SQS moves it to the DLQ,
 * where it is kept and alarmed on. Both fail the record; a thrown error does too, and is logged with its stack.
 */
export type RecordOutcome = "done" | "retry" | "reject";

export interface RecordScope {
  /** Log keys for this record only: removed once it is finished (after its failure, if any, is logged). */
  appendKeys(keys: Record<string, string>): void;
}

export type RecordHandler = (record: SQSRecord, scope: RecordScope) => Promise<RecordOutcome>;

/**
 * The partial-batch bookkeeping, written once (Powertools' processPartialResponse is the model): records in order,
 * one at a time; every record that does not end `done` goes into batchItemFailures, and a whole failed batch is a
 * response like any other, not a thrown error.
 */
export async function processPartialBatch(
  event: SQSEvent,
  handle: RecordHandler,
  opts: { readonly logger: KeyedLogger; readonly name: string },
): Promise<SQSBatchResponse> {
  const { logger } = opts;
  const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
  for (const record of event.Records) {
    const keys: string[] = [];
    const scope: RecordScope = {
      appendKeys(k) {
        keys.push(...Object.keys(k));
        logger.appendKeys(k);
      },
    };
    let outcome: RecordOutcome;
    try {
      outcome = await handle(record, scope);
    } catch (err) {
      logger.error(`${opts.name} failed; SQS will redeliver`, {
        error: String((err as Error)?.stack ?? err),
      });
      outcome = "retry";
    }
    if (keys.length > 0) logger.removeKeys(keys);
    if (outcome !== "done") batchItemFailures.push({ itemIdentifier: record.messageId });
  }
  return { batchItemFailures };
}

/** A Lambda SQS handler over one record function. */
export function sqsBatchHandler(
  handle: RecordHandler,
  opts: { readonly logger: KeyedLogger; readonly name: string },
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return (event) => processPartialBatch(event, handle, opts);
}
