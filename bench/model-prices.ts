/**
 * Model list prices for `npm run bench:cost`, per million tokens in USD, for the models the example catalog
 * (postern.config.example.json) names, as published on the pages below. Checked 2026-12-02. Change them here, and
 * only here, when a provider changes a price.
 *
 * - Claude Sonnet 4.5, Claude API: $3 input, $15 output, $3.75 five-minute cache write (1.25x), $0.30 cache read
 *   (0.1x). https://platform.claude.com/docs/en/about-claude/pricing. Anthropic's model page lists Sonnet 4.5 as
 *   deprecated and retired from the Claude API on 2026-11-30 (Sonnet 5.5, $2 / $10, replaces it): the example
 *   catalog still names it, and the bench prices what the catalog names.
 * - Claude Sonnet 4.5 on Amazon Bedrock through the `global.` cross-region inference profile: the same rates (the
 *   global profile is priced at Anthropic's list; geographic and in-region profiles cost 10% more), cache writes and
 *   reads at 1.25x and 0.1x of input. https://aws.amazon.com/bedrock/pricing/
 * - A local OpenAI-compatible server (Ollama): no list price; the hardware is the operator's.
 *
 * Tokenizer: Anthropic's published tokenizer (`@anthropic-ai/tokenizer`), which is Claude 2's; Anthropic says newer
 * models count somewhat differently (Sonnet 5 and later count about 30% more tokens for the same text), and the
 * exact count needs their count-tokens API, which this offline bench cannot call. The counts are therefore close,
 * not exact, and the same tokenizer is used for the before and after figures.
 */
export interface ModelPrice {
  /** USD per token. */
  readonly input: number;
  readonly output: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
  /**
   * The smallest prefix the provider caches (Claude Sonnet models: 1,024 tokens); a breakpoint on a shorter prefix
   * caches nothing and costs nothing extra.
   */
  readonly minCacheable: number;
  /**
   * Tokens the provider adds to every request that offers tools (Anthropic, "Tool use": 346 for Claude 4 models
   * with `tool_choice` auto), part of the cacheable prefix.
   */
  readonly toolPromptTokens: number;
  readonly source: string;
}

const perMillion = (usd: number) => usd / 1_000_000;

const SONNET_4_5 = {
  input: perMillion(3),
  output: perMillion(15),
  cacheWrite: perMillion(3.75),
  cacheRead: perMillion(0.3),
  minCacheable: 1024,
  toolPromptTokens: 346,
};

/** By the catalog entry's provider and model id. */
export function modelPrice(provider: string, model: string): ModelPrice | null {
  if (provider === "anthropic" && model.startsWith("claude-sonnet-4-5"))
    return { ...SONNET_4_5, source: "https://platform.claude.com/docs/en/about-claude/pricing" };
  if (provider === "bedrock" && /^global\.anthropic\.claude-sonnet-4-5/.test(model))
    return { ...SONNET_4_5, source: "https://aws.amazon.com/bedrock/pricing/" };
  return null;
}

export const MODEL_PRICES_CHECKED = "2026-12-02";
