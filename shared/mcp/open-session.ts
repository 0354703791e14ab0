import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerItem } from "../admin/index.ts";
import type { HostResolver } from "../net/index.ts";
import type { ToolDefinition } from "./definition-hash.ts";
import { guardedFetch } from "./guarded-fetch.ts";
import { McpUnavailable } from "./mcp-unavailable.ts";
import { clientCredentialsToken } from "./oauth-token.ts";

/** A tool as the server lists it: the pinned definition, plus claims shown at review only. */
export interface ListedTool extends ToolDefinition {
  readonly annotations?: Record<string, unknown> | undefined;
}

/** One connection to one server, for one listing or call. */
export interface McpSession {
  listTools(): Promise<readonly ListedTool[]>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    meta: Record<string, string>,
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

export type McpConnector = (server: McpServerItem) => Promise<McpSession>;

export interface ConnectorOptions {
  readonly resolve: HostResolver;
  /** A secret's value by the name the server item gives (Secrets Manager / the local secrets file). */
  secret(name: string): Promise<string | undefined>;
  /**
   * Local stack and tests only, set explicitly in code, never from an admin item: stdio servers (a child process
   * of the runtime) and loopback addresses. In AWS both stay refused.
   */
  readonly local?: { readonly allowStdio: boolean; readonly allowLoopback: boolean };
  /** Response bodies past this are cut off (default 4 MiB): the result cap applies after, this bounds memory. */
  readonly maxResponseBytes?: number;
}

const MAX_LIST_PAGES = 10;

/**
 * The MCP client (the SDK's, client side only: its server side pulls express into the bundle). It declares no
 * client capabilities: a server may not ask for sampling (a way into our model), elicitation or roots.
 */
export function mcpConnector(opts: ConnectorOptions): McpConnector {
  return async (server) => {
    const transport = await transportFor(server, opts);
    const client = new Client({ name: "postern", version: "1" }, { capabilities: {} });
    const timeout = server.timeoutMs;
    await client.connect(transport, { timeout });
    return {
      async listTools() {
        const out: ListedTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const r = await client.listTools(cursor ? { cursor } : undefined, { timeout });
          for (const t of r.tools)
            out.push({
              name: t.name,
              description: t.description,
              inputSchema: t.inputSchema,
              annotations: t.annotations as Record<string, unknown> | undefined,
              title: t.title,
              outputSchema: t.outputSchema,
            });
          cursor = r.nextCursor;
          if (!cursor) break;
        }
        return out;
      },
      async callTool(name, args, meta) {
        const r = await client.callTool({ name, arguments: args, _meta: meta }, undefined, {
          timeout,
          maxTotalTimeout: timeout,
        });
        return r as CallToolResult;
      },
      close: () => client.close(),
    };
  };
}

async function transportFor(server: McpServerItem, opts: ConnectorOptions): Promise<Transport> {
  if (server.transport === "stdio") {
    // A child process of the function: only where the operator runs the runtime themselves.
    if (!opts.local?.allowStdio || !server.command)
      throw new McpUnavailable("mcp-stdio-not-allowed", "stdio servers run only in the local stack");
    return new StdioClientTransport({
      command: server.command,
      args: [...server.args],
      // The SDK's minimal environment (PATH, HOME, ...): the runtime's own variables, credentials among them,
      // are not the server's (G16).
      env: getDefaultEnvironment(),
      stderr: "ignore",
    });
  }
  const url = server.url ?? "";
  const fetch = guardedFetch({
    serverUrl: url,
    resolve: opts.resolve,
    allowLoopback: opts.local?.allowLoopback === true,
    maxResponseBytes: opts.maxResponseBytes ?? 4 * 1024 * 1024,
  });
  const token = await bearerToken(server, opts);
  return new StreamableHTTPClientTransport(new URL(url), {
    fetch,
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
}

async function bearerToken(server: McpServerItem, opts: ConnectorOptions): Promise<string | undefined> {
  const auth = server.auth;
  if (auth.kind === "none") return undefined;
  const secret = await opts.secret(auth.secret);
  // The secret's name may be said; its value never is (G16).
  if (!secret) throw new McpUnavailable("mcp-auth-unavailable", `secret ${auth.secret} is not set`);
  if (auth.kind === "bearer") return secret;
  return clientCredentialsToken(auth, secret, {
    resolve: opts.resolve,
    allowLoopback: opts.local?.allowLoopback === true,
  });
}
