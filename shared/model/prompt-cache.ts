// Where a request may be cached. A model call is billed for its whole context every time; providers
// cache a request's prefix so the next call that starts the same way is billed a fraction for it. What comes first
// must therefore be what never changes: the tools and the system prompt (the engine's standing rules, then the
// operator's instructions: the same for every run of an agent), then the conversation, which grows by one turn
// per round. Providers that need markers get them at the places this file names; OpenAI and compatible servers
// cache a long enough prefix on their own.

import { toolResultText } from "./content.ts";
import type { CacheField, ModelFacts } from "./model-facts.ts";
import type { Message, ModelRequest } from "./types.ts";

/**
 * The prefix marks a request carries: always one after the tools and the system prompt (read back by the agent's
 * next run within the provider's cache lifetime, usually five minutes), and one after the conversation's last
 * message once the run has gone past its first round.
 *
 * Why not mark the conversation on round 1: a cache write costs more than plain input (Anthropic and Bedrock
 * bill 1.25x the input price for the five-minute cache), and most runs are one round now (a reply ends the run).
 * A run that reaches a second round is working through tools, so from there each round's conversation is written
 * once and read back by the next.
 */
export function conversationBreakpoint(messages: readonly Message[]): boolean {
  return messages.some((m) => m.role === "assistant");
}

/** Which checkpoints one request carries: each after its field's last block. */
export interface CachePlan {
  readonly tools: boolean;
  readonly system: boolean;
  readonly messages: boolean;
}

export const NO_CACHE: CachePlan = { tools: false, system: false, messages: false };

/**
 * Tokens of a text, counted low on purpose: a checkpoint is placed only when the prefix certainly reaches the
 * model's minimum, so the estimate must not run high. Claude's tokenizers give about 3.5 characters per token for
 * English and fewer for JSON and other scripts; four characters per token undercounts all of them.
 */
export function lowTokenEstimate(text: string): number {
  return Math.floor(text.length / 4);
}

function messageText(m: Message): string {
  if (m.role === "user") return m.content.map((b) => b.text).join("");
  if (m.role === "assistant")
    return m.text + m.toolCalls.map((c) => c.name + JSON.stringify(c.input ?? {})).join("");
  // Attachments are left out: an image's tokens follow its pixels, not its base64 length, and leaving them out
  // only counts lower.
  return m.results.map(toolResultText).join("");
}

/**
 * The checkpoints a request may carry for a model: only in the fields the model accepts them in (a Nova model
 * refuses one in `toolConfig.tools`), and only where the prefix up to it reaches the model's minimum (below it
 * nothing is cached, and the checkpoint buys nothing). A model without facts gets none.
 */
export function cachePlan(
  request: Pick<ModelRequest, "system" | "tools" | "messages">,
  facts: Pick<ModelFacts, "cacheFields" | "minCacheTokens" | "toolPromptTokens"> | null,
): CachePlan {
  if (facts === null) return NO_CACHE;
  const takes = (f: CacheField) => facts.cacheFields.includes(f);
  const min = facts.minCacheTokens;
  // Claude renders tools before the system prompt; for a model that takes no checkpoint after the tools, their
  // place in its prompt is not documented, so they are not counted into the system prompt's prefix.
  const tools =
    request.tools.length > 0 && takes("tools")
      ? facts.toolPromptTokens +
        lowTokenEstimate(
          request.tools.map((t) => t.name + t.description + JSON.stringify(t.inputSchema)).join(""),
        )
      : 0;
  const system = tools + lowTokenEstimate(request.system);
  const all = system + request.messages.reduce((a, m) => a + lowTokenEstimate(messageText(m)), 0);
  return {
    tools: tools > 0 && tools >= min,
    system: request.system !== "" && takes("system") && system >= min,
    messages: takes("messages") && conversationBreakpoint(request.messages) && all >= min,
  };
}
