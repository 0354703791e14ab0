import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { ActivityEntry } from "../agent/ports.ts";
import type { Resources } from "../config/index.ts";
import { STATE_KEYS } from "../config/index.ts";
import { queryAll } from "./dynamo-util.ts";
import type { StateRepo } from "./state-repo.ts";

const pk = STATE_KEYS.activity;
/** The newest entries a later run is shown. */
const MAX_SHOWN = 30;
/** Items read per thread (one per call, keyed `<runId>#<callId>` so a re-recorded call is written once). */
const MAX_READ = 500;

/**
 * What the agent did in a thread (tool calls and their outcomes), so a later run in the same thread remembers
 * its own actions. Per agent and thread in the `state` table; one item per call, written once.
 */
export class ThreadActivity {
  readonly #state: Pick<StateRepo, "putIfAbsent">;
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(deps: {
    state: Pick<StateRepo, "putIfAbsent">;
    dynamo: DynamoDBDocumentClient;
    tables: Resources["tables"];
  }) {
    this.#state = deps.state;
    this.#dynamo = deps.dynamo;
    this.#table = deps.tables.state;
  }

  async record(agent: string, threadId: string, callId: string, entry: ActivityEntry): Promise<void> {
    await this.#state.putIfAbsent(pk(agent, threadId), `${entry.runId}#${callId}`, { ...entry });
  }

  async list(agent: string, threadId: string): Promise<ActivityEntry[]> {
    const items = await queryAll(
      this.#dynamo,
      {
        TableName: this.#table,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": pk(agent, threadId) },
      },
      MAX_READ,
    );
    return items
      .map((i) => ({
        at: String(i.at),
        runId: String(i.runId),
        tool: String(i.tool),
        ok: i.ok === true,
        ...(i.reason ? { reason: String(i.reason) } : {}),
      }))
      .sort((x, y) => x.at.localeCompare(y.at))
      .slice(-MAX_SHOWN);
  }
}
