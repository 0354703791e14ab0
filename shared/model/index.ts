// Front door of shared/model: the model interface, the provider factory. Outside this
// folder, import this file only (docs/architecture.md).

export { createModel } from "./factory.ts";
export { modelFacts, RECOMMENDED } from "./model-facts.ts";
export {
  type AssistantMessage,
  type DocumentMediaType,
  type ImageMediaType,
  type MediaBlock,
  type Message,
  type ModelFailureReason,
  type ModelProvider,
  type ToolResultPart,
  type ToolResultsMessage,
  tokensProcessed,
  type Usage,
} from "./types.ts";
