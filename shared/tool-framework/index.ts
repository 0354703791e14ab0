export { builtinTools } from "./builtin/index.ts";
export { defineSearchTool } from "./builtin/web-search.ts";
export type {
  AttachmentMeta,
  FactStore,
  Mailbox,
  MailboxMessage,
  RunTrigger,
  ToolContext,
  VerifiedSender,
} from "./context.ts";
export {
  type ContextResolver,
  type ContextResolverInput,
  defineContextResolver,
} from "./context-resolver.ts";
export { ToolRegistry } from "./registry.ts";
export {
  defineTool,
  type EgressDeclaration,
  success,
  type Tool,
  type ToolResult,
  toolFailure,
} from "./tool.ts";
