// The MCP module's one front door: outside tool servers as a toolkit source (G20, docs/mcp.md).

export { type McpServerItem, type McpToolPin, mcpServerItem, mcpToolClass } from "../admin/index.ts";
export { PIN_PREDATES_COVERAGE } from "./compare-pins.ts";
export { definitionHash } from "./definition-hash.ts";
export { type McpRuntime, type McpRuntimeOptions, mcpRuntime } from "./mcp-runtime.ts";
export { type ConnectorOptions, type ListedTool, type McpConnector, mcpConnector } from "./open-session.ts";
export { pinTools, type ToolChoice } from "./pin-tools.ts";
export {
  type InputNames,
  listServerTools,
  mcpSecretLookup,
  mcpServerFromInput,
  PIN_PREDATES_COVERAGE_TEXT,
  REVIEW_STATE_TEXT,
  type ReviewRow,
  reviewStates,
} from "./registration.ts";
