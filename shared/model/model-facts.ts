// What Postern knows about each model it ships an example for: where a request may carry a prompt-cache
// checkpoint, the smallest prefix a checkpoint caches, list prices, and whether the catalog should still name it.
// One table, read by the providers (bedrock-wire.ts, anthropic-wire.ts), `postern synth` (an old id warns),
// `postern doctor` (beside the service's own lifecycle answer) and `npm run bench:cost` (bench/model-prices.ts).
// Change a fact here, with its source, and nowhere else.

/** The request fields a prompt-cache checkpoint may follow (Bedrock Converse's names; Anthropic's are the same). */
export type CacheField = "tools" | "system" | "messages";

/** USD per million tokens; cache writes are the five-minute cache's. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
}

export interface ModelFacts {
  readonly name: string;
  /** `current`: a new account can call it; `old`: legacy, deprecated or retired where the catalog would call it. */
  readonly status: "current" | "old";
  /** Why it is old, with the date, for the synth warning and the doctor's fix. */
  readonly note?: string;
  /** Fields that accept a checkpoint; a checkpoint anywhere else is refused (ValidationException). */
  readonly cacheFields: readonly CacheField[];
  /** Tokens the prefix up to a checkpoint must reach; below it nothing is cached. */
  readonly minCacheTokens: number;
  /** Tokens the provider adds to a request that offers tools (part of the cached prefix). */
  readonly toolPromptTokens: number;
  readonly price?: ModelPrice;
  readonly sources: readonly string[];
}

const ANTHROPIC_PRICING = "https://platform.claude.com/docs/en/about-claude/pricing";
const ANTHROPIC_CACHING = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching";
const ANTHROPIC_IDS = "https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions";
const BEDROCK_CACHING = "https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html";
const BEDROCK_PRICING = "https://aws.amazon.com/bedrock/pricing/";
const BEDROCK_LIFECYCLE = "https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle-legacy.html";
const ANTHROPIC_TOOLS = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview";

/** Claude on either service: checkpoints after the tools, the system prompt and messages (both caching pages). */
const CLAUDE_FIELDS: readonly CacheField[] = ["tools", "system", "messages"];
/** Amazon Nova on Bedrock: system and messages only (Bedrock's prompt-caching table, the Nova model cards). */
const NOVA_FIELDS: readonly CacheField[] = ["system", "messages"];
/** Claude 4 models with `tool_choice` auto (Anthropic, "Tool use": the tool-use system prompt). */
const CLAUDE_TOOL_PROMPT = 346;

/** Sonnet pricing: $3 input, $15 output, writes 1.25x, reads 0.1x (the `global.` profile at Anthropic's list). */
const SONNET_PRICE: ModelPrice = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const OPUS_4_7_PRICE: ModelPrice = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };

interface Row extends ModelFacts {
  /** The model's id on the Claude API (`anthropic` provider). */
  readonly anthropic?: string;
  /** The foundation-model id on Bedrock, without an inference-profile prefix. */
  readonly bedrock?: string;
}

const ROWS: readonly Row[] = [
  {
    name: "Claude Sonnet 4.6",
    anthropic: "claude-sonnet-4-6",
    bedrock: "anthropic.claude-sonnet-4-6",
    status: "current",
    cacheFields: CLAUDE_FIELDS,
    minCacheTokens: 1024,
    toolPromptTokens: CLAUDE_TOOL_PROMPT,
    price: SONNET_PRICE,
    sources: [
      ANTHROPIC_IDS,
      ANTHROPIC_PRICING,
      ANTHROPIC_CACHING,
      ANTHROPIC_TOOLS,
      BEDROCK_CACHING,
      BEDROCK_PRICING,
    ],
  },
  {
    name: "Claude Opus 4.7",
    anthropic: "claude-opus-4-7",
    bedrock: "anthropic.claude-opus-4-7",
    status: "current",
    cacheFields: CLAUDE_FIELDS,
    minCacheTokens: 2048,
    toolPromptTokens: CLAUDE_TOOL_PROMPT,
    price: OPUS_4_7_PRICE,
    sources: [
      "https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-4-7.html",
      ANTHROPIC_PRICING,
      ANTHROPIC_CACHING,
    ],
  },
  {
    name: "Claude Sonnet 4.5",
    anthropic: "claude-sonnet-4-5",
    bedrock: "anthropic.claude-sonnet-4-5-20250929-v1:0",
    status: "old",
    note: "retired from the Claude API on 2026-11-30, and Legacy on Bedrock (new accounts cannot use it): use Claude Sonnet 4.6",
    cacheFields: CLAUDE_FIELDS,
    // Bedrock lists 4,096 per checkpoint for Sonnet 4.5; the Claude API's 1,024 no longer matters (retired).
    minCacheTokens: 4096,
    toolPromptTokens: CLAUDE_TOOL_PROMPT,
    price: SONNET_PRICE,
    sources: [
      BEDROCK_CACHING,
      BEDROCK_LIFECYCLE,
      "https://platform.claude.com/docs/en/about-claude/model-deprecations",
    ],
  },
];

/** A model of a known family but not in the table: its family's fields, and the largest minimum known. */
const FAMILIES: readonly { readonly test: RegExp; readonly facts: ModelFacts }[] = [
  {
    test: /^anthropic\.claude-|^claude-/,
    facts: {
      name: "Claude (not in the table)",
      status: "current",
      cacheFields: CLAUDE_FIELDS,
      minCacheTokens: 4096,
      toolPromptTokens: CLAUDE_TOOL_PROMPT,
      sources: [BEDROCK_CACHING, ANTHROPIC_CACHING],
    },
  },
  {
    test: /^amazon\.nova-/,
    facts: {
      name: "Amazon Nova",
      status: "current",
      cacheFields: NOVA_FIELDS,
      minCacheTokens: 1000,
      toolPromptTokens: 0,
      sources: [BEDROCK_CACHING],
    },
  },
];

/** Bedrock's cross-region inference-profile prefixes (infra/constructs/model-access.ts names the same). */
const PROFILE_PREFIX = /^(us|eu|apac|us-gov|jp|au|ca|global)\./;

/** The foundation-model id a Bedrock `modelId` names: profile prefix dropped, ARN reduced to its id. */
export function bedrockBaseId(modelId: string): string {
  const arn = /^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:[a-z-]+\/(.+)$/.exec(modelId);
  return (arn?.[1] ?? modelId).replace(PROFILE_PREFIX, "");
}

/**
 * The facts for a catalog model, by provider and id; null for a model with no prompt cache Postern knows of
 * (another provider, a Bedrock model of another family), which then gets no checkpoint at all.
 */
export function modelFacts(provider: "bedrock" | "anthropic", modelId: string): ModelFacts | null {
  const id = provider === "bedrock" ? bedrockBaseId(modelId) : modelId;
  const row = ROWS.find((r) =>
    provider === "bedrock" ? r.bedrock === id : r.anthropic === id || r.anthropic === dateless(id),
  );
  if (row) return row;
  return FAMILIES.find((f) => f.test.test(id))?.facts ?? null;
}

/** `claude-sonnet-4-5-20250929` is the dated id of `claude-sonnet-4-5` (the models before the 4.6 generation). */
function dateless(id: string): string {
  return id.replace(/-\d{8}$/, "");
}

/** What the example catalog names and the doctor offers in place of an old model (Claude Sonnet 4.6). */
export const RECOMMENDED = {
  bedrock: "global.anthropic.claude-sonnet-4-6",
  anthropic: "claude-sonnet-4-6",
} as const;

/** Every row, for the docs' table test and the bench. */
export const MODEL_FACTS: readonly Row[] = ROWS;
