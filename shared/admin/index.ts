// Front door of shared/admin: admin-table schemas, validation on read, the document check, the catalog.
// Outside this folder, import this file only (docs/architecture.md).

export { type AdminCatalog, adminCatalog } from "./catalog.ts";
export { type AdminIssue, zodIssues } from "./issues.ts";
export type { AdminList } from "./raw-input.ts";
export {
  type AdminTable,
  readAccessRules,
  readAgents,
  readApprovers,
  readOutboundRules,
  readResponsibilities,
  readToolkits,
  ruleKey,
} from "./read.ts";
export { configRoundLimit, DEFAULT_MAX_ROUNDS, roundLimit } from "./round-limit.ts";
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
  type AdminTables,
  checkAdminWrite,
  exportAdminDocument,
  type ImportResult,
  importAdminDocument,
  type WriteOptions,
} from "./sync.ts";
