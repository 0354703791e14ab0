import type { McpServerItem } from "../admin/index.ts";
import { STATE_KEYS } from "../config/index.ts";
import type { Tool } from "../tool-framework/index.ts";
import { type DefinitionChange, mcpTool, type ServerUnavailable } from "./mcp-tool.ts";
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
  /** G19: a server that could not be listed before an offer. Called once per run and server. */
  reportUnavailable(u: ServerUnavailable): Promise<void>;
  /** Replaces the SDK connector (tests that count connections). */
  readonly connect?: McpConnector;
}

const RUN_COUNTER_TTL_SECONDS = 7 * 24 * 3600;

/** What the agent step uses of MCP: the reviewed tools of a snapshot's servers, and the check before each offer. */
export function mcpRuntime(opts: McpRuntimeOptions) {
  const connect = opts.connect ?? mcpConnector(opts);
  // Each round lists again; a report per round would be one alarm per model call, so once per run (per container).
  const told = new Set<string>();
  const firstTime = (key: string): boolean => {
    if (told.has(key)) return false;
    if (told.size >= 1_000) told.clear();
    told.add(key);
    return true;
  };
  const definitionChanged = async (c: DefinitionChange) => {
    if (firstTime(`changed\n${c.runId}\n${c.exposedAs}\n${c.live}`)) await opts.report(c);
  };
  const serverUnavailable = async (u: ServerUnavailable) => {
    if (firstTime(`unavailable\n${u.runId}\n${u.server}`)) await opts.reportUnavailable(u);
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
    offer: offerCheck({ connect, definitionChanged, serverUnavailable }),
  };
}
export type McpRuntime = ReturnType<typeof mcpRuntime>;
