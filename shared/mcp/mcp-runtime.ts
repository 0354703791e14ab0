import type { McpServerItem } from "../admin/index.ts";
import { STATE_KEYS } from "../config/index.ts";
import type { Tool } from "../tool-framework/index.ts";
import { type DefinitionChange, mcpTool } from "./mcp-tool.ts";
import { offerCheck } from "./offer-check.ts";
import { type ConnectorOptions, type McpConnector, mcpConnector } from "./open-session.ts";

/** The state table's atomic counter, as the per-run call budget uses it. */
export interface CallCounter {
  increment(
    pk: string,
    sk: string,
    by: number,
    opts: { readonly limit?: number; readonly ttlSeconds?: number },
  ): Promise<{ readonly ok: boolean }>;
}

export interface McpRuntimeOptions extends ConnectorOptions {
  readonly counters: CallCounter;
  /** G19: a changed definition's trace event, metric and alarm. Called once per run and tool. */
  report(change: DefinitionChange): Promise<void>;
  /** Replaces the SDK connector (tests that count connections). */
  readonly connect?: McpConnector;
}

const RUN_COUNTER_TTL_SECONDS = 7 * 24 * 3600;

/** What the agent step uses of MCP: the reviewed tools of a snapshot's servers, and the check before each offer. */
export function mcpRuntime(opts: McpRuntimeOptions) {
  const connect = opts.connect ?? mcpConnector(opts);
  const told = new Set<string>();
  const definitionChanged = async (c: DefinitionChange) => {
    const key = `${c.runId}\n${c.exposedAs}\n${c.live}`;
    if (told.has(key)) return;
    if (told.size >= 1_000) told.clear();
    told.add(key);
    await opts.report(c);
  };
  const deps = {
    connect,
    definitionChanged,
    // Durable across rounds (each round may run in another container): one conditional add per call.
    takeCall: async (runId: string, server: string, max: number) =>
      (
        await opts.counters.increment(STATE_KEYS.mcpCalls(runId), server, 1, {
          limit: max,
          ttlSeconds: RUN_COUNTER_TTL_SECONDS,
        })
      ).ok,
  };
  return {
    tools: (servers: readonly McpServerItem[]): Tool[] =>
      servers.filter((s) => s.enabled).flatMap((s) => s.tools.map((pin) => mcpTool(s, pin, deps))),
    offer: offerCheck({ connect, definitionChanged }),
  };
}
export type McpRuntime = ReturnType<typeof mcpRuntime>;
