import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { processPartialBatch, type RecordOutcome } from "../../../shared/payloads/partial-batch.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

const event = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, body })) }) as unknown as SQSEvent;

describe("processPartialBatch", () => {
  it("fails exactly the records that do not end done; a thrown error fails its record only", async () => {
    const logger = recordingLogger();
    const seen: string[] = [];
    const out = await processPartialBatch(
      event("done", "retry", "reject", "throw", "done"),
      async (record, scope) => {
        seen.push(record.body);
        scope.appendKeys({ correlationId: record.messageId });
        if (record.body === "throw") throw new Error("boom");
        return record.body as RecordOutcome;
      },
      { logger, name: "test" },
    );
    expect(seen).toEqual(["done", "retry", "reject", "throw", "done"]);
    expect(out).toEqual({
      batchItemFailures: [{ itemIdentifier: "m1" }, { itemIdentifier: "m2" }, { itemIdentifier: "m3" }],
    });
    // The failure is logged under the record's keys; the keys do not leak to the next record.
    expect(logger.lines.map((l) => [l.level, l.message, l.keys])).toEqual([
      ["error", "test failed; SQS will redeliver", { correlationId: "m3" }],
    ]);
    expect(String(logger.lines[0]?.extra?.error)).toContain("Error: boom");
  });

  it("a whole failed batch is a response, not a thrown error; an empty batch fails nothing", async () => {
    const logger = recordingLogger();
    const retry = async (): Promise<RecordOutcome> => "retry";
    expect(await processPartialBatch(event("a"), retry, { logger, name: "t" })).toEqual({
      batchItemFailures: [{ itemIdentifier: "m0" }],
    });
    expect(await processPartialBatch(event(), retry, { logger, name: "t" })).toEqual({
      batchItemFailures: [],
    });
  });
});
