import type { ConnectorOptions, McpConnector } from "./open-session.ts";

/**
 * open-session.ts as agent-step's bundle holds it (infra/bundling.ts AGENT_STEP_STUBS swaps this file in for it):
 * the same `mcpConnector`, its code loaded on the first connection. The SDK's client side, with ajv (it
 * validates tool output schemas), is most of what agent-step's bundle would otherwise parse and run at every cold
 * start, though most agents have no MCP server; the dynamic import is where the bundler splits it into a chunk
 * that only a run talking to a server loads (bench/bundle.ts measures both).
 *
 * Only a bundle with code splitting may hold this file: in one file, esbuild inlines a dynamic import as a lazily
 * initialised module, and zod, which the SDK and the eager code share, is then used before it is initialised.
 * Unbundled (tests, the local stack) and in the console's bundle, open-session.ts is used as it is.
 */
export function mcpConnector(opts: ConnectorOptions): McpConnector {
  let loaded: Promise<McpConnector> | undefined;
  return async (server) => {
    loaded ??= import("./open-session.ts")
      .then((m) => m.mcpConnector(opts))
      .catch((err: unknown) => {
        // A failed load (a chunk missing from a broken package) is tried again by the next connection.
        loaded = undefined;
        throw err;
      });
    return (await loaded)(server);
  };
}
