/**
 * Model list prices for `npm run bench:cost`, per token in USD, for the models the example catalog
 * (postern.config.example.json) names. The prices, cache minimums and tool-prompt tokens are the providers'
 * own facts, kept with their sources in one table (shared/model/model-facts.ts) that the providers read too:
 * change them there, and only there. Checked 2026-12-04.
 *
 * - Claude Sonnet 4.6, on the Claude API and on Amazon Bedrock through the `global.` cross-region inference
 *   profile (priced at Anthropic's list; geographic and in-region profiles cost 10% more): $3 input, $15 output,
 *   cache writes 1.25x and reads 0.1x of input; a checkpoint caches from 1,024 tokens.
 * - A local OpenAI-compatible server (Ollama): no list price; the hardware is the operator's.
 *
 * Tokenizer: Anthropic's published tokenizer (`@anthropic-ai/tokenizer`), which is Claude 2's; Anthropic says newer
 * models count somewhat differently, and the exact count needs their count-tokens API, which this offline bench
 * cannot call. The counts are therefore close, not exact, and the same tokenizer is used for the before and after
 * figures.
 */
import { modelFacts } from "../shared/model/index.ts";
import type { ModelFacts } from "../shared/model/model-facts.ts";

export interface ModelPrice {
  /** USD per token. */
  readonly input: number;
  readonly output: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
  /** The smallest prefix a checkpoint caches (model-facts.ts); a shorter one is not marked at all. */
  readonly minCacheable: number;
  /** Tokens the provider adds to every request that offers tools, part of the cacheable prefix. */
  readonly toolPromptTokens: number;
  /** The facts the provider plans its checkpoints from (shared/model/prompt-cache.ts cachePlan). */
  readonly facts: ModelFacts;
  readonly source: string;
}

const perToken = (usdPerMillion: number) => usdPerMillion / 1_000_000;

/** By the catalog entry's provider and model id, from the facts table; null for a model it prices nothing for. */
export function modelPrice(provider: string, model: string): ModelPrice | null {
  if (provider !== "anthropic" && provider !== "bedrock") return null;
  const facts = modelFacts(provider, model);
  if (!facts?.price) return null;
  return {
    input: perToken(facts.price.input),
    output: perToken(facts.price.output),
    cacheWrite: perToken(facts.price.cacheWrite),
    cacheRead: perToken(facts.price.cacheRead),
    minCacheable: facts.minCacheTokens,
    toolPromptTokens: facts.toolPromptTokens,
    facts,
    source: facts.sources.join(" "),
  };
}

export const MODEL_PRICES_CHECKED = "2026-12-04";
