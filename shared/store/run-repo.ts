import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { PREFIXES, type Resources } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import type {
  CreateRunResult,
  FinalRunState,
  FinishRunResult,
  NewRun,
  RunFailureMark,
  RunRecord,
  RunState,
  RunTable,
} from "../ports/index.ts";
import { type Fail, fail, type Ok, ok } from "../result.ts";
import { isConditionFailed, scanAll } from "./dynamo-util.ts";

export type ClaimRoundResult = Ok | Fail<"already-claimed" | "not-running" | "missing" | "wrong-round">;
export type FinishRoundResult =
  | { readonly ok: true; readonly round: number }
  | Fail<"not-claimed" | "not-running" | "missing" | "wrong-round">;

/** Where a run's transcript is kept in the bucket: derived from its id, by the table and the transcript store. */
export const transcriptKey = (runId: string): string => `${PREFIXES.transcripts}${runId}.json`;

export interface RunRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
  readonly now?: () => Date;
}

/**
 * Runs and their round state machine. agent-step is delivered at least once, so each round is claimed with a
 * conditional update before the model is called: a redelivered step finds the round claimed and does nothing,
 * which is what keeps one inbound mail from producing two model calls or two replies.
 */
export class RunRepo implements RunTable {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => string;

  constructor(deps: RunRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.runs;
    const now = deps.now ?? (() => new Date());
    this.#now = () => now().toISOString();
  }

  async create(input: NewRun): Promise<CreateRunResult> {
    const at = input.createdAt ?? this.#now();
    const run: RunRecord = {
      ...input,
      transcriptKey: transcriptKey(input.runId),
      createdAt: at,
      updatedAt: at,
      state: "running",
      round: 1,
      claimedRound: 0,
      finishReason: null,
      transcriptSaved: false,
    };
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.#table,
          Item: run,
          ConditionExpression: "attribute_not_exists(runId)",
        }),
      );
      return ok({ run });
    } catch (err) {
      if (isConditionFailed(err)) return fail("duplicate");
      throw err;
    }
  }

  async get(runId: string): Promise<RunRecord | null> {
    const r = await this.#dynamo.send(
      new GetCommand({ TableName: this.#table, Key: { runId }, ConsistentRead: true }),
    );
    return (r.Item as RunRecord | undefined) ?? null;
  }

  /** Claim `round` for this step: only if it is the current round, the run is running and nobody claimed it. */
  async claimRound(runId: string, round: number): Promise<ClaimRoundResult> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { runId },
          UpdateExpression: "SET claimedRound = :r, updatedAt = :now",
          ConditionExpression:
            "attribute_exists(runId) AND #state = :running AND #round = :r AND claimedRound < :r",
          ExpressionAttributeNames: { "#state": "state", "#round": "round" },
          ExpressionAttributeValues: { ":r": round, ":running": "running", ":now": this.#now() },
        }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      const run = await this.get(runId);
      if (!run) return fail("missing");
      if (run.state !== "running") return fail("not-running");
      // A round below the current one was claimed and finished; the current one with claimedRound >= it is taken.
      if (round < run.round || run.claimedRound >= round) return fail("already-claimed");
      return fail("wrong-round");
    }
  }

  /** Close a claimed round and advance to the next one → the new current round. */
  async finishRound(runId: string, round: number): Promise<FinishRoundResult> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { runId },
          UpdateExpression: "SET #round = :next, updatedAt = :now",
          ConditionExpression:
            "attribute_exists(runId) AND #state = :running AND #round = :r AND claimedRound = :r",
          ExpressionAttributeNames: { "#state": "state", "#round": "round" },
          ExpressionAttributeValues: {
            ":r": round,
            ":next": round + 1,
            ":running": "running",
            ":now": this.#now(),
          },
        }),
      );
      return { ok: true, round: round + 1 };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      const run = await this.get(runId);
      if (!run) return fail("missing");
      if (run.state !== "running") return fail("not-running");
      if (run.round !== round) return fail("wrong-round");
      return fail("not-claimed");
    }
  }

  /**
   * Move the run's `round` forward to `round` (never back): the step loop's own round ledger is authoritative,
   * this keeps the run item readable (`postern runs list`).
   */
  async noteRound(runId: string, round: number): Promise<void> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { runId },
          UpdateExpression: "SET #round = :r, claimedRound = :r, updatedAt = :now",
          ConditionExpression: "attribute_exists(runId) AND #round < :r",
          ExpressionAttributeNames: { "#round": "round" },
          ExpressionAttributeValues: { ":r": round, ":now": this.#now() },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** The run's transcript is written (RunRecord.transcriptSaved). A missing run is no error and creates nothing. */
  async noteTranscript(runId: string): Promise<void> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { runId },
          UpdateExpression: "SET transcriptSaved = :saved, updatedAt = :now",
          ConditionExpression: "attribute_exists(runId)",
          ExpressionAttributeValues: { ":saved": true, ":now": this.#now() },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** End the run in a final state, once: a second finish (redelivery) gets `not-running`. */
  async finish(runId: string, state: FinalRunState, reason: string): Promise<FinishRunResult> {
    if ((state as RunState) === "running")
      throw new PosternError("invalid-argument", "finish: final state required");
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { runId },
          UpdateExpression: "SET #state = :state, finishReason = :reason, updatedAt = :now",
          ConditionExpression: "attribute_exists(runId) AND #state = :running",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: {
            ":state": state,
            ":reason": reason,
            ":running": "running",
            ":now": this.#now(),
          },
        }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return fail((await this.get(runId)) ? "not-running" : "missing");
    }
  }

  /**
   * Mark the run's row with a failure that belongs to it (G19), and count it: the latest one shows in `postern runs`
   * and the console's run lists. Unconditional but for the run's existence: a failure of mail a run caused may
   * arrive after the run ended. A missing run is not an error (the mark is for display; the failure is reported
   * elsewhere too).
   */
  async markFailure(runId: string, mark: RunFailureMark): Promise<void> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { runId },
          UpdateExpression: "SET failure = :f ADD failureCount :one",
          ConditionExpression: "attribute_exists(runId)",
          ExpressionAttributeValues: { ":f": mark, ":one": 1 },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** Newest first. A full scan: for the local stack and operator tooling (traces), not for a hot path. */
  async listRecent(limit: number): Promise<RunRecord[]> {
    const all = (await scanAll(this.#dynamo, this.#table)) as unknown as RunRecord[];
    return all
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .slice(0, limit);
  }
}
