import { createHash } from "node:crypto";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { STATE_KEYS } from "../config/index.ts";
import type { FactStore } from "../tool-framework/index.ts";
import { queryAll } from "./dynamo-util.ts";
import type { StateRepo } from "./state-repo.ts";

/** At most this many facts are listed back into a thread's context. */
const MAX_FACTS = 50;

/**
 * Facts per agent and thread (`state` table, pk `facts#<agent>#<thread>`), keyed by the call's idempotency key so
 * a replayed round records a fact once.
 */
export function createFactStore(deps: {
  state: Pick<StateRepo, "putIfAbsent">;
  dynamo: DynamoDBDocumentClient;
  tables: Resources["tables"];
  agent: string;
  scope: string;
  now: () => Date;
}): FactStore {
  const pk = STATE_KEYS.facts(deps.agent, deps.scope);
  return {
    async record(f) {
      const id = `fact-${createHash("sha256").update(f.key).digest("hex").slice(0, 16)}`;
      const put = await deps.state.putIfAbsent(pk, id, {
        fact: f.fact,
        evidence: f.evidence,
        at: deps.now().toISOString(),
      });
      return { id, duplicate: !put.ok };
    },
    async list() {
      const items = await queryAll(
        deps.dynamo,
        {
          TableName: deps.tables.state,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": pk },
        },
        MAX_FACTS,
      );
      return items.map((i) => ({
        id: String(i.sk),
        fact: String(i.fact),
        evidence: String(i.evidence),
        at: String(i.at),
      }));
    },
  };
}
