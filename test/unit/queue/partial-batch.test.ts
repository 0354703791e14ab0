import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { processPartialBatch, type RecordOutcome } from "../../../shared/queue/partial-batch.ts";
import type { FunctionLogger } from "../../../shared/runtime/logger.ts";

function keyedLogger() {
  const lines: string[] = [];
  const keys = new Map<string, string>();
  const at = (level: string) => (message: string) =>
    void lines.push(`${level} ${message}${keys.size ? ` ${JSON.stringify(Object.fromEntries(keys))}` : ""}`);
  const logger: FunctionLogger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    appendKeys: (k) => {
      for (const [key, value] of Object.entries(k)) keys.set(key, value);
    },
    removeKeys: (ks) => {
      for (const key of ks) keys.delete(key);
    },
  };
  return { logger, lines };
}

const event = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, body })) }) as unknown as SQSEvent;

describe("processPartialBatch", () => {
  it("fails exactly the records that do not end done; a thrown error fails its record only", async () => {
    const { logger, lines } = keyedLogger();
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
    expect(lines).toEqual(['error test failed; SQS will redeliver {"correlationId":"m3"}']);
  });

  it("a whole failed batch is a response, not a thrown error; an empty batch fails nothing", async () => {
    const { logger } = keyedLogger();
    const retry = async (): Promise<RecordOutcome> => "retry";
    expect(await processPartialBatch(event("a"), retry, { logger, name: "t" })).toEqual({
      batchItemFailures: [{ itemIdentifier: "m0" }],
    });
    expect(await processPartialBatch(event(), retry, { logger, name: "t" })).toEqual({
      batchItemFailures: [],
    });
  });
});
