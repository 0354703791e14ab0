import { createHash } from "node:crypto";
import { STATE_KEYS } from "../../config/index.ts";
import type { KeyValueState } from "../../ports/index.ts";

/** The once-per-run marks, kept past any run's life. */
const MARK_TTL_SECONDS = 7 * 24 * 3600;

/**
 * A trace recorder that writes an event of the kinds `keyOf` names once per run: every round lists the MCP
 * servers again, and the same unreviewed tools in every round's trace are noise that hides the round's own
 * events. The mark is a conditional put in the state table, durable across rounds (each may run in another
 * container); an event `keyOf` returns null for is recorded every time.
 */
export function oncePerRun<E extends { readonly type: string }>(
  state: Pick<KeyValueState, "putIfAbsent">,
  runId: string,
  keyOf: (event: E) => string | null,
  record: (event: E) => Promise<void>,
): (event: E) => Promise<void> {
  return async (event) => {
    const key = keyOf(event);
    if (key === null) return record(event);
    // A digest: the key holds outside names (a server's tool names) and DynamoDB's sort key stops at 1 KB.
    const sk = createHash("sha256").update(key).digest("hex");
    const first = await state.putIfAbsent(STATE_KEYS.runOnce(runId), sk, {}, MARK_TTL_SECONDS);
    if (first.ok) await record(event);
  };
}
