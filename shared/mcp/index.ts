// The MCP module's one front door: outside tool servers as a toolkit source (G20, docs/mcp.md).

export {
  exposedName,
  type McpAuth,
  type McpServerItem,
  type McpToolClass,
  type McpToolPin,
  mcpServerItem,
  mcpToolClass,
  mcpToolPin,
} from "../admin/index.ts";
export { comparePins, PIN_PREDATES_COVERAGE, type PinComparison } from "./compare-pins.ts";
export { definitionHash, PIN_HASH_VERSION, type ToolDefinition } from "./definition-hash.ts";
export { McpTransportRefused, type TransportRefusal } from "./guarded-fetch.ts";
export { type CallCounter, type McpRuntime, type McpRuntimeOptions, mcpRuntime } from "./mcp-runtime.ts";
export {
  type DefinitionChange,
  type McpCallReason,
  META_AGENT,
  META_IDEMPOTENCY_KEY,
  META_PRINCIPAL,
  mcpTool,
  type ServerUnavailable,
} from "./mcp-tool.ts";
export { McpUnavailable } from "./mcp-unavailable.ts";
export { type OfferEvent, offerCheck } from "./offer-check.ts";
export {
  type ConnectorOptions,
  type ListedTool,
  type McpConnector,
  type McpSession,
  mcpConnector,
} from "./open-session.ts";
export { type PinResult, pinTools, type ToolChoice } from "./pin-tools.ts";
export {
  type InputNames,
  listServerTools,
  type McpInputResult,
  type McpServerInput,
  mcpSecretLookup,
  mcpServerFromInput,
  PIN_PREDATES_COVERAGE_TEXT,
  REVIEW_STATE_TEXT,
  type ReviewRow,
  type ReviewState,
  reviewStates,
} from "./registration.ts";
