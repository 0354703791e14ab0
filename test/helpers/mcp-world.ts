import type { McpServerItem } from "../../shared/mcp/index.ts";
import { mcpServerItem } from "../../shared/mcp/index.ts";
import type { CallCounter } from "../../shared/mcp/mcp-runtime.ts";
import type { HostResolver } from "../../shared/net/resolver.ts";
import type { ToolContext } from "../../shared/tool-framework/context.ts";
import { noMailbox, toolContext } from "../unit/tools/tool-context.ts";

/** A server item as `postern mcp add` would store it (defaults applied by the schema). */
export function serverItem(extra: Record<string, unknown>): McpServerItem {
  return mcpServerItem.parse({ id: "orders", transport: "http", ...extra });
}

/** The state table's counter, in memory, with the same limit rule (no add past the limit). */
export function memoryCounter(): CallCounter & { values: Map<string, number> } {
  const values = new Map<string, number>();
  return {
    values,
    async increment(pk, sk, by, opts) {
      const k = `${pk}\n${sk}`;
      const next = (values.get(k) ?? 0) + by;
      if (opts.limit !== undefined && next > opts.limit) return { ok: false };
      values.set(k, next);
      return { ok: true };
    },
  };
}

/** Answers every name with the loopback address: the test servers listen on 127.0.0.1. */
export const loopbackResolver: HostResolver = async () => ["127.0.0.1"];

/** A tool context for one call of a run, with a proven sender. */
export function mcpCallContext(over: Partial<ToolContext> = {}): ToolContext {
  return { ...toolContext(noMailbox), ...over };
}
