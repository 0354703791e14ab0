import type { McpServerItem, McpToolPin } from "../admin/index.ts";
import { printable } from "../mail/index.ts";
import type { Tool } from "../tool-framework/index.ts";
import { comparePins } from "./compare-pins.ts";
import { type DefinitionChange, mcpFailure, mcpOrigin, type ServerUnavailable } from "./mcp-tool.ts";
import type { McpConnector } from "./open-session.ts";

export interface OfferCheckDeps {
  readonly connect: McpConnector;
  definitionChanged(change: DefinitionChange): Promise<void>;
  serverUnavailable(u: ServerUnavailable): Promise<void>;
}

/** A trace event the offer check asks the run to record. */
export type OfferEvent =
  | {
      readonly type: "mcp-unavailable";
      readonly data: { server: string; reason: string; detail: string };
    }
  | {
      readonly type: "mcp-unreviewed";
      readonly data: { server: string; tools: readonly string[]; more?: number };
    };

/**
 * How many unreviewed names a trace event keeps, and how much of each: the names are the server's choice, and one
 * run event is one DynamoDB item (400 KB at most, or the step fails). 20 names of at most 128 characters after
 * `printable` (no control, bidi or invisible character) keep it under 3 KB; the rest are counted, not named.
 */
const MAX_UNREVIEWED_NAMES = 20;
const MAX_NAME_CHARS = 128;

/**
 * Before a model call: list each MCP server whose tools the gates would offer, and keep only tools whose live
 * definition still hashes to the reviewed pin (G20). A changed or vanished tool is reported (`mcp-definition-changed`,
 * G19) and left out; a tool the server added since review is never offered (it has no pin); a server that cannot be
 * listed offers nothing this round and is reported (`mcp-unavailable`, G19): the agent answers without the tools the
 * operator granted, which someone must learn. Built-in and operator tools pass through untouched.
 */
export function offerCheck(deps: OfferCheckDeps) {
  return async (
    tools: readonly Tool[],
    run: { readonly runId: string; readonly agent: string },
    record: (event: OfferEvent) => Promise<void>,
  ): Promise<readonly Tool[]> => {
    const byServer = new Map<string, { server: McpServerItem; pins: McpToolPin[] }>();
    for (const t of tools) {
      const o = mcpOrigin(t);
      if (!o) continue;
      const entry = byServer.get(o.server.id) ?? { server: o.server, pins: [] };
      entry.pins.push(o.pin);
      byServer.set(o.server.id, entry);
    }
    if (byServer.size === 0) return tools;
    const verified = new Set<string>();
    await Promise.all(
      [...byServer.values()].map(async ({ server, pins }) => {
        let listed: Awaited<ReturnType<Awaited<ReturnType<McpConnector>>["listTools"]>>;
        try {
          const session = await deps.connect(server);
          try {
            listed = await session.listTools();
          } finally {
            await session.close().catch(() => undefined);
          }
        } catch (err) {
          const { reason, detail } = mcpFailure(server, err);
          await record({ type: "mcp-unavailable", data: { server: server.id, reason, detail } });
          await deps.serverUnavailable({
            runId: run.runId,
            agent: run.agent,
            server: server.id,
            reason,
            detail,
          });
          return;
        }
        const cmp = comparePins(listed, pins);
        for (const p of cmp.verified) verified.add(p.exposedAs);
        const changes = [
          ...cmp.changed.map((c) => ({ pin: c.pin, live: c.hash })),
          ...cmp.missing.map((pin) => ({ pin, live: "missing" })),
        ];
        for (const { pin, live } of changes)
          await deps.definitionChanged({
            runId: run.runId,
            agent: run.agent,
            server: server.id,
            tool: pin.name,
            exposedAs: pin.exposedAs,
            live,
          });
        const unpinned = cmp.unreviewed.filter((n) => !server.tools.some((p) => p.name === n));
        if (unpinned.length > 0)
          await record({
            type: "mcp-unreviewed",
            data: {
              server: server.id,
              tools: unpinned
                .slice(0, MAX_UNREVIEWED_NAMES)
                .map((n) => printable(n, { max: MAX_NAME_CHARS })),
              ...(unpinned.length > MAX_UNREVIEWED_NAMES
                ? { more: unpinned.length - MAX_UNREVIEWED_NAMES }
                : {}),
            },
          });
      }),
    );
    return tools.filter((t) => !mcpOrigin(t) || verified.has(t.name));
  };
}
