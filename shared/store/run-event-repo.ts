import { type DynamoDBDocumentClient, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import type { RunEvent, RunEventReader, StoredRunEvent } from "../ports/index.ts";
import { type Fail, fail } from "../result.ts";
import { isConditionFailed, queryAll } from "./dynamo-util.ts";

export type AppendResult = { readonly ok: true; readonly seq: number } | Fail<"too-large">;

/** Events are the trace, not the transcript: anything bigger belongs in S3 with its key in `data`. */
export const MAX_EVENT_BYTES = 32 * 1024;

export interface RunEventRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
  /** Tests move it. */
  readonly now?: () => Date;
}

/** Tries at a taken number before giving up (a collision needs two writers on one run in one millisecond). */
const MAX_SEQ_TRIES = 32;

/**
 * Append-only run events (the trace), one conditional PutItem each (the sequence number used to come
 * from a counter on the run item, a second write per event). `seq` is the append time in microsecond-sized
 * steps: milliseconds × 1000 plus a per-container counter, so one container's events are strictly ordered and two
 * containers' interleave in time order (Lambda hosts' clocks are NTP-synchronised; rounds of one run follow each
 * other). The put is conditional, so nothing overwrites an event already written: a taken number (two writers
 * in the same millisecond with the same counter) moves on to a free one. Below 2^53 until the year 2255.
 */
export class RunEventRepo implements RunEventReader {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #events: string;
  readonly #now: () => Date;
  #counter = 0;

  constructor(deps: RunEventRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#events = deps.tables.runEvents;
    this.#now = deps.now ?? (() => new Date());
  }

  async append(runId: string, event: RunEvent): Promise<AppendResult> {
    if (Buffer.byteLength(JSON.stringify(event), "utf8") > MAX_EVENT_BYTES) return fail("too-large");
    this.#counter = (this.#counter + 1) % 1000;
    let seq = this.#now().getTime() * 1000 + this.#counter;
    for (let tries = 1; ; tries++) {
      try {
        await this.#dynamo.send(
          new PutCommand({
            TableName: this.#events,
            Item: { ...event, runId, seq },
            ConditionExpression: "attribute_not_exists(seq)",
          }),
        );
        return { ok: true, seq };
      } catch (err) {
        if (!isConditionFailed(err) || tries >= MAX_SEQ_TRIES) throw err;
        // A random step, not +1: a writer behind a run of taken numbers (a frozen test clock, a counter that
        // wrapped) would otherwise walk them one by one.
        seq += 1 + Math.floor(Math.random() * 1000);
      }
    }
  }

  /** In order of `seq`. */
  async list(runId: string): Promise<StoredRunEvent[]> {
    const items = await queryAll(this.#dynamo, {
      TableName: this.#events,
      KeyConditionExpression: "runId = :r",
      ExpressionAttributeValues: { ":r": runId },
      ConsistentRead: true,
    });
    return items as unknown as StoredRunEvent[];
  }
}
