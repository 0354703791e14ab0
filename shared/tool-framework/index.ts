// Front door of shared/tool-framework: the tool contract, the registry, the built-in tools and context
// resolvers. Outside this folder, import this file only (docs/architecture.md).

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
  type ToolContent,
  type ToolResult,
  toolFailure,
} from "./tool.ts";
