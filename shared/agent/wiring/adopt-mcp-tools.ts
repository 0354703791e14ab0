import type { AdminSnapshot } from "../../admin/index.ts";
import type { Logger } from "../../logger.ts";
import type { McpRuntime } from "../../mcp/index.ts";
import type { ToolRegistry } from "../../tool-framework/index.ts";

/**
 * The registry holds the reviewed MCP tools of the snapshot in use: rebuilt when the snapshot changes, so a review
 * (or a removal) takes effect at the next delivery, as every admin edit does. Returns the snapshot it was given.
 */
export function adoptMcpTools(
  registry: ToolRegistry,
  mcp: Pick<McpRuntime, "tools">,
  logger: Logger,
): (snapshot: AdminSnapshot) => AdminSnapshot {
  let adopted: AdminSnapshot | null = null;
  return (snapshot) => {
    if (snapshot === adopted) return snapshot;
    adopted = snapshot;
    const refused = registry.adopt(mcp.tools(snapshot.mcpServers));
    if (refused.length > 0) logger.error("mcp tools not adopted: their names are taken", { tools: refused });
    return snapshot;
  };
}
