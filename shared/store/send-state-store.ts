import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { STATE_KEYS } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import type { SendRecord, SendRecordFields, SendState, SendStateStore } from "../outbound/ports.ts";
import type { Item } from "../ports/index.ts";
import { scanAll } from "./dynamo-util.ts";
import type { StateRepo } from "./state-repo.ts";

/** Send state items: pk `send#<requestId>`, sk `send` in the `state` table. */
export const sendPk = STATE_KEYS.send;
export const SEND_SK = "send";

const STATES: readonly SendState[] = ["claimed", "sending", "sent", "done", "unknown", "failed"];

function toRecord(requestId: string, item: Item): SendRecord {
  const state = item.state as SendState;
  // An item in a state this code does not know is a bug or a hand edit: refuse to guess what was sent.
  if (!STATES.includes(state))
    throw new PosternError(
      "invariant-broken",
      `send state ${requestId}: unknown state ${String(item.state)}`,
    );
  const { pk: _pk, sk: _sk, expiresAt: _e, ...rest } = item;
  return { ...(rest as unknown as SendRecord), requestId, state };
}

/**
 * The send state machine on the shared StateRepo (conditional put and conditional update, one item: dynalite
 * has no transactions and none are needed). A multi-source transition tries each source state in turn; each
 * attempt is itself atomic, so at most one of them applies.
 */
export function sendStateStore(repo: StateRepo): SendStateStore {
  return {
    async get(requestId) {
      const item = await repo.get(sendPk(requestId), SEND_SK);
      return item ? toRecord(requestId, item) : null;
    },
    async claim(requestId, at) {
      const r = await repo.putIfAbsent(sendPk(requestId), SEND_SK, {
        requestId,
        state: "claimed",
        claimedAt: at,
        updatedAt: at,
      });
      return r.ok;
    },
    async transition(requestId, from, to, fields: SendRecordFields, at) {
      for (const source of from) {
        const r = await repo.transition(sendPk(requestId), SEND_SK, source, to, { ...fields, updatedAt: at });
        if (r.ok) return true;
        if (r.reason === "missing") return false;
      }
      return false;
    },
  };
}

/**
 * Send items whose outcome an operator must settle (docs/outbound.md): `unknown`, and `sending` older than the
 * lease (a worker died in the window and no redelivery has looked yet). For a reconcile command; it scans the
 * `state` table, so it is an operator tool, never on the send path.
 */
export async function listUncertainSends(
  dynamo: DynamoDBDocumentClient,
  stateTable: string,
  opts: { readonly now: Date; readonly leaseMs?: number },
): Promise<SendRecord[]> {
  const lease = opts.leaseMs ?? 120_000;
  const items = await scanAll(dynamo, stateTable);
  return items
    .filter((i) => typeof i.pk === "string" && i.pk.startsWith("send#") && i.sk === SEND_SK)
    .map((i) => toRecord(String(i.pk).slice("send#".length), i))
    .filter(
      (r) =>
        r.state === "unknown" ||
        (r.state === "sending" && opts.now.getTime() - Date.parse(r.sendingAt ?? r.updatedAt) >= lease),
    );
}
