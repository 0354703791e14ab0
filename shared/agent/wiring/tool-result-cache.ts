import { STATE_KEYS } from "../../config/index.ts";
import type { StateRepo } from "../../store/index.ts";
import type { ToolResult } from "../../tool-framework/index.ts";
import type { ToolResultCache } from "../loop/dispatch.ts";

/** How long a tool result is kept by idempotency key: past any redelivery of its round. */
const TOOL_RESULT_TTL_SECONDS = 30 * 24 * 3600;

/** Tool results by idempotency key, kept 30 days in the state table. */
export function toolResultCache(state: StateRepo): ToolResultCache {
  return {
    async get(key) {
      const item = await state.get(STATE_KEYS.toolResult(key), "result");
      return item ? (JSON.parse(String(item.result)) as ToolResult) : null;
    },
    async put(key, result) {
      await state.putIfAbsent(
        STATE_KEYS.toolResult(key),
        "result",
        { result: JSON.stringify(result) },
        TOOL_RESULT_TTL_SECONDS,
      );
    },
  };
}
