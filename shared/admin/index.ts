// Front door of shared/admin: admin-table schemas, validation on read, the document check, the catalog.
// Outside this folder, import this file only (docs/architecture.md).

// The event types are the events' port's (ports/webhooks.ts); re-exported for the admin schema's readers.
export { WEBHOOK_EVENT_TYPES } from "../ports/index.ts";
export { type AdminCatalog, adminCatalog, runningConfigCite } from "./catalog.ts";
export { type AdminIssue, zodIssues } from "./issues.ts";
export {
  exposedName,
  type McpAuth,
  type McpServerItem,
  type McpToolClass,
  type McpToolPin,
  mcpServerItem,
  mcpToolClass,
} from "./mcp-server-item.ts";
export type { AdminList } from "./raw-input.ts";
export {
  type AdminTable,
  readAccessRules,
  readAgents,
  readApprovers,
  readMcpServers,
  readOutboundRules,
  readResponsibilities,
  readToolkits,
  readWebhooks,
  ruleKey,
} from "./read.ts";
export { roundLimit } from "./round-limit.ts";
export {
  type AccessRuleItem,
  type AdminDocument,
  type AdminSnapshot,
  type AgentItem,
  type ApproverItem,
  accessRuleItem,
  adminDocument,
  agentItem,
  approverItem,
  type OutboundRuleItem,
  outboundRuleItem,
  type ResponsibilityItem,
  responsibilityItem,
  type ToolkitItem,
  toolkitItem,
} from "./schema.ts";
export {
  type AdminEditor,
  type AdminTables,
  type AdminWriteResult,
  checkAdminWrite,
  exportAdminDocument,
  type ImportResult,
  importAdminDocument,
  type PutOptions,
  type WebhookTable,
  type WriteOptions,
} from "./sync.ts";
export { type WebhookItem, webhookId, webhookItem } from "./webhook-item.ts";
