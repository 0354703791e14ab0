import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import type {
  ClaimResult,
  CompleteResult,
  InboundClaim,
  InboundLedger,
  InboundOutcome,
  InboundRecord,
} from "../ports/index.ts";
import { fail, failWith } from "../result.ts";
import { isConditionFailed, scanAll } from "./dynamo-util.ts";

export interface InboundRepoDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tables: Resources["tables"];
  readonly now?: () => Date;
}

/**
 * One item per (SES message id, envelope recipient): the dedupe marker, the gate verdict and the pointer to the
 * evidence. SES and SQS deliver at least once; the conditional claim makes a second delivery a no-op.
 */
export class InboundRepo implements InboundLedger {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => Date;

  constructor(deps: InboundRepoDeps) {
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.inbound;
    this.#now = deps.now ?? (() => new Date());
  }

  async claim(claim: InboundClaim): Promise<ClaimResult> {
    const record: InboundRecord = {
      ...claim,
      status: "claimed",
      claimedAt: this.#now().toISOString(),
      completedAt: null,
      verdict: null,
      reason: null,
      sender: null,
      agent: null,
      messageId: null,
    };
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.#table,
          Item: record,
          ConditionExpression: "attribute_not_exists(sesMessageId)",
        }),
      );
      return { ok: true, record };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return failWith("duplicate", { existing: await this.get(claim.sesMessageId, claim.recipient) });
    }
  }

  /**
   * Take over a claim whose holder died (crashed after claiming, before completing). Compare-and-swap on the
   * `claimedAt` the caller saw in the duplicate's `existing` record: of several redeliveries that saw the same
   * stale claim, exactly one wins. Deciding what counts as stale (age) is the caller's policy.
   */
  async reclaimStale(sesMessageId: string, recipient: string, seenClaimedAt: string): Promise<boolean> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { sesMessageId, recipient },
          UpdateExpression: "SET claimedAt = :now",
          ConditionExpression: "#status = :claimed AND claimedAt = :seen",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: {
            ":now": this.#now().toISOString(),
            ":claimed": "claimed",
            ":seen": seenClaimedAt,
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  async complete(sesMessageId: string, recipient: string, outcome: InboundOutcome): Promise<CompleteResult> {
    // Refusals and drops join the console's per-day index (sparse: accepted mail never carries the attribute).
    const refusal = outcome.verdict !== "accept";
    const now = this.#now().toISOString();
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { sesMessageId, recipient },
          UpdateExpression: `SET #status = :done, completedAt = :now, verdict = :verdict, #reason = :reason, sender = :sender, #agent = :agent, messageId = :messageId${refusal ? ", refusalDay = :day, refusalAt = :now" : ""}${outcome.detail !== undefined ? ", detail = :detail" : ""}`,
          ConditionExpression: "#status = :claimed",
          ExpressionAttributeNames: { "#status": "status", "#reason": "reason", "#agent": "agent" },
          ExpressionAttributeValues: {
            ":done": "done",
            ":claimed": "claimed",
            ":now": now,
            ":verdict": outcome.verdict,
            ":reason": outcome.reason,
            ":sender": outcome.sender,
            ":agent": outcome.agent,
            ":messageId": outcome.messageId,
            ...(refusal ? { ":day": now.slice(0, 10) } : {}),
            ...(outcome.detail !== undefined ? { ":detail": outcome.detail } : {}),
          },
        }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      const current = await this.get(sesMessageId, recipient);
      return fail(current ? "already-done" : "missing");
    }
  }

  async get(sesMessageId: string, recipient: string): Promise<InboundRecord | null> {
    const r = await this.#dynamo.send(
      new GetCommand({ TableName: this.#table, Key: { sesMessageId, recipient }, ConsistentRead: true }),
    );
    return (r.Item as InboundRecord | undefined) ?? null;
  }

  /** Newest first. A full scan: meant for the local stack and operator tooling, not for a hot path. */
  async listRecent(limit: number): Promise<InboundRecord[]> {
    const all = (await scanAll(this.#dynamo, this.#table)) as unknown as InboundRecord[];
    return all
      .sort((a, b) => (a.receivedAt < b.receivedAt ? 1 : a.receivedAt > b.receivedAt ? -1 : 0))
      .slice(0, limit);
  }
}
