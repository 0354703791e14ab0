/** Expected failures to reach a server before any request: thrown by the connector, mapped to a reason code. */
export class McpUnavailable extends Error {
  readonly reason: "mcp-stdio-not-allowed" | "mcp-auth-unavailable";
  constructor(reason: "mcp-stdio-not-allowed" | "mcp-auth-unavailable", detail: string) {
    super(`${reason}: ${detail}`);
    this.reason = reason;
    this.name = "McpUnavailable";
  }
}
