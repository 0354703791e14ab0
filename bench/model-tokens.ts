/**
 * The model's side of `npm run bench:cost`: the requests agent-step actually sent in a scripted run,
 * counted with a real tokenizer and priced at the example catalog's list prices (bench/model-prices.ts), with the
 * prompt cache as each provider applies it (shared/model/prompt-cache.ts), beside the same mail as the pipeline
 * sent it before a reply ended the run (two calls, nothing cached: the round-1 request, then the same conversation
 * with the model's turn and the send's result appended, as the saved transcript holds them).
 */
import { countTokens } from "@anthropic-ai/tokenizer";
import { toolResultText } from "../shared/model/content.ts";
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
 * The calls of one answered mail as billed now. `warm`: the agent answered another mail within the cache's
 * lifetime (five minutes), so its tools and system prompt are read from the cache; otherwise this call writes
 * them. A call after the first of its run also reads the conversation the previous call wrote (prompt-cache.ts
 * marks it from round 2 on). A prefix under the provider's minimum is not cached at all.
 */
export function billedNow(
  calls: readonly CapturedCall[],
  price: ModelPrice | null,
  warm: boolean,
): MailTokens {
  const t = { calls: calls.length, input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };
  let previousTotal = 0;
  for (const [i, c] of calls.entries()) {
    const prefix = prefixTokens(c.request, price);
    const total = prefix + c.request.messages.reduce((a, m) => a + messageTokens(m), 0);
    t.output += turnTokens(c.turn);
    if (price === null || prefix < price.minCacheable) t.input += total;
    else if (i === 0) {
      // round 1: the tools and system are read (or written, cold); its conversation is not marked
      if (warm) t.cacheRead += prefix;
      else t.cacheWrite += prefix;
      t.input += total - prefix;
    } else {
      // round 2 reads what round 1 cached (the prefix), later rounds the previous round's conversation; each
      // writes the rest of its own
      const read = i === 1 ? prefix : previousTotal;
      t.cacheRead += read;
      t.cacheWrite += total - read;
    }
    previousTotal = total;
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
