import type { ToolkitItem } from "../../../shared/admin/schema.ts";
import type { CallCheck } from "../../../shared/agent/loop/call-check.ts";
import type { DispatchDeps, DispatchEvent } from "../../../shared/agent/loop/dispatch.ts";
import type { ToolContext } from "../../../shared/tool-framework/context.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";
import type { Tool, ToolResult } from "../../../shared/tool-framework/tool.ts";

export const AGENT = "helpdesk@agents.example.net";

export function kit(id: string, tools: string[], extra: Partial<ToolkitItem> = {}): ToolkitItem {
  return {
    id,
    tools,
    agents: [AGENT],
    senderRules: [],
    archiveScope: "sender",
    egressHosts: [],
    allowScheduled: false,
    system: false,
    confirmBySender: false,
    ...extra,
  };
}

/** Dispatch deps over in-memory ports; the gates under test are the real ones. */
export function dispatchDeps(opts: {
  tools: readonly Tool[];
  toolkits: readonly ToolkitItem[];
  checks?: readonly CallCheck[];
  sender?: string | null;
  kind?: "reply" | "scheduled";
}): DispatchDeps & { events: DispatchEvent[]; results: Map<string, ToolResult> } {
  const events: DispatchEvent[] = [];
  const results = new Map<string, ToolResult>();
  const cache: DispatchDeps["cache"] = {
    get: async (k) => results.get(k) ?? null,
    put: async (k, r) => void results.set(k, r),
  };
  const sender = opts.sender === undefined ? "alice@example.com" : opts.sender;
  return {
    gate: {
      agent: AGENT,
      sender: sender ? { address: sender, routingKey: sender, displayName: "" } : null,
      kind: opts.kind ?? "reply",
      toolkits: opts.toolkits,
      registry: new ToolRegistry(opts.tools),
    },
    makeContext: () => ({}) as ToolContext,
    cache,
    results,
    events,
    record: async (e) => void events.push(e),
    checks: opts.checks ?? [],
    runId: "run-1",
    round: 1,
  };
}
