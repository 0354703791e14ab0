/**
 * The model's side of `npm run bench:cost`: the requests agent-step actually sent in a scripted run,
 * counted with a real tokenizer and priced at the example catalog's list prices (bench/model-prices.ts), with the
 * prompt cache as each provider applies it (shared/model/prompt-cache.ts), beside the same mail as the pipeline
 * sent it before a reply ended the run (two calls, nothing cached: the round-1 request, then the same conversation
 * with the model's turn and the send's result appended, as the saved transcript holds them).
 */
import { countTokens } from "@anthropic-ai/tokenizer";
import { toolResultText } from "../shared/model/content.ts";
import { cachePlan, NO_CACHE } from "../shared/model/prompt-cache.ts";
import type { Message, ModelProvider, ModelRequest, ModelTurn } from "../shared/model/types.ts";
import type { ModelPrice } from "./model-prices.ts";

/** One model call the pipeline made: what it sent and what came back. */
export interface CapturedCall {
  readonly request: ModelRequest;
  readonly turn: ModelTurn | null;
}

/** The catalog, with every call recorded into `sink`. */
export function recording(
  catalog: (id: string) => ModelProvider | null,
  sink: (c: CapturedCall) => void,
): (id: string) => ModelProvider | null {
  return (id) => {
    const inner = catalog(id);
    if (!inner) return null;
    return {
      ...inner,
      async generate(request) {
        const result = await inner.generate(request);
        sink({ request, turn: result.ok ? result.turn : null });
        return result;
      },
    };
  };
}

const tokens = (text: string) => (text === "" ? 0 : countTokens(text));

/** Tokens of what never changes between an agent's runs: the tools and the system prompt. */
export function prefixTokens(
  request: Pick<ModelRequest, "system" | "tools">,
  price: ModelPrice | null,
): number {
  const tools = request.tools.reduce(
    (a, t) => a + tokens(t.name) + tokens(t.description) + tokens(JSON.stringify(t.inputSchema)),
    0,
  );
  return (request.tools.length > 0 ? (price?.toolPromptTokens ?? 0) : 0) + tools + tokens(request.system);
}

function messageTokens(m: Message): number {
  if (m.role === "user") return m.content.reduce((a, b) => a + tokens(b.text), 0);
  if (m.role === "assistant")
    return (
      tokens(m.text) +
      m.toolCalls.reduce((a, c) => a + tokens(c.name) + tokens(JSON.stringify(c.input ?? {})), 0)
    );
  return m.results.reduce((a, r) => a + tokens(toolResultText(r)), 0);
}

const turnTokens = (turn: ModelTurn | null): number =>
  turn === null ? 0 : messageTokens({ role: "assistant", text: turn.text, toolCalls: turn.toolCalls });

/** One mail's model tokens, as billed. */
export interface MailTokens {
  readonly calls: number;
  /** Input billed at the full input price. */
  readonly input: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
  readonly output: number;
}

export const usd = (t: MailTokens, p: ModelPrice): number =>
  t.input * p.input + t.cacheWrite * p.cacheWrite + t.cacheRead * p.cacheRead + t.output * p.output;

/**
 * The calls of one answered mail as billed now. Which checkpoints each call carries is the provider's own plan
 * (shared/model/prompt-cache.ts `cachePlan`, from the model's facts: its fields and its minimum), so the bench
 * bills what the adapter sends. `warm`: the agent answered another mail within the cache's lifetime (five
 * minutes), so a checkpointed tools-and-system prefix is read from the cache; otherwise this call writes it. A
 * call after the first reads what the previous call cached (its conversation, when that was checkpointed, else
 * the prefix) and writes up to its own last checkpoint.
 */
export function billedNow(
  calls: readonly CapturedCall[],
  price: ModelPrice | null,
  warm: boolean,
): MailTokens {
  const t = { calls: calls.length, input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };
  let previous = { total: 0, conversationMarked: false };
  for (const [i, c] of calls.entries()) {
    const plan = price === null ? NO_CACHE : cachePlan(c.request, price.facts);
    const prefix = prefixTokens(c.request, price);
    const total = prefix + c.request.messages.reduce((a, m) => a + messageTokens(m), 0);
    t.output += turnTokens(c.turn);
    const markedPrefix = plan.tools || plan.system ? prefix : 0;
    const read =
      i === 0 ? (warm ? markedPrefix : 0) : previous.conversationMarked ? previous.total : markedPrefix;
    const cachedUpTo = plan.messages ? total : markedPrefix;
    const write = Math.max(0, cachedUpTo - read);
    t.cacheRead += read;
    t.cacheWrite += write;
    t.input += total - read - write;
    previous = { total, conversationMarked: plan.messages };
  }
  return t;
}

/**
 * The same mail as the pipeline answered it before a reply ended the run: round 1's request, then round 2's
 * (round 1's conversation, the model's turn and the send's result, from the saved transcript), nothing cached,
 * and a short closing turn ("done") as round 2's output.
 */
export function billedBefore(
  first: CapturedCall,
  transcriptTail: readonly Message[],
  price: ModelPrice | null,
): MailTokens {
  const round1 =
    prefixTokens(first.request, price) + first.request.messages.reduce((a, m) => a + messageTokens(m), 0);
  const round2 = round1 + transcriptTail.reduce((a, m) => a + messageTokens(m), 0);
  return {
    calls: 2,
    input: round1 + round2,
    cacheWrite: 0,
    cacheRead: 0,
    output: turnTokens(first.turn) + tokens("done"),
  };
}
