/**
 * `npm run bench:cost`'s model table: per scenario and per model of the example catalog, the calls and
 * tokens one answered mail bills before (two rounds, nothing cached) and now (a reply ends the run; the prompt
 * cache as the provider applies it), priced at list prices, beside the AWS side measured in the same run.
 */
import { readFileSync } from "node:fs";
import type { Message } from "../shared/model/types.ts";
import { MODEL_PRICES_CHECKED, type ModelPrice, modelPrice } from "./model-prices.ts";
import { billedBefore, billedNow, type CapturedCall, type MailTokens, usd } from "./model-tokens.ts";

/** One measured scenario: the model calls of its answered mail, its transcript's tail, its AWS dollars. */
export interface ModelScenario {
  readonly name: string;
  readonly calls: readonly CapturedCall[];
  /** What the saved transcript holds after round 1's request: the model's turn and the send's result. */
  readonly transcriptTail: readonly Message[];
  /** AWS dollars for this mail, SES's own fees included (bench/cost.ts's bill). */
  readonly awsUsd: number;
}

interface CatalogModel {
  readonly id: string;
  readonly label: string;
  readonly price: ModelPrice | null;
}

/** The example catalog's models, each with its list price (null: none, e.g. a local server). */
export function exampleCatalog(path: string): CatalogModel[] {
  const config = JSON.parse(readFileSync(path, "utf8")) as {
    models: { id: string; provider: string; model?: string; modelId?: string }[];
  };
  return config.models.map((m) => {
    const model = m.modelId ?? m.model ?? "";
    return { id: m.id, label: `${m.id} (${m.provider} ${model})`, price: modelPrice(m.provider, model) };
  });
}

export interface ModelFigures {
  readonly model: CatalogModel;
  readonly scenario: string;
  readonly before: MailTokens;
  readonly cold: MailTokens;
  readonly warm: MailTokens;
  readonly beforeUsd: number | null;
  readonly warmUsd: number | null;
  readonly awsUsd: number;
}

export function figures(
  scenarios: readonly ModelScenario[],
  catalog: readonly CatalogModel[],
): ModelFigures[] {
  const out: ModelFigures[] = [];
  for (const s of scenarios) {
    const first = s.calls[0];
    if (!first) throw new Error(`scenario ${s.name}: no model call was recorded`);
    for (const model of catalog) {
      const before = billedBefore(first, s.transcriptTail, model.price);
      const cold = billedNow(s.calls, model.price, false);
      const warm = billedNow(s.calls, model.price, true);
      out.push({
        model,
        scenario: s.name,
        before,
        cold,
        warm,
        beforeUsd: model.price ? usd(before, model.price) : null,
        warmUsd: model.price ? usd(warm, model.price) : null,
        awsUsd: s.awsUsd,
      });
    }
  }
  return out;
}

const n = (x: number) => x.toLocaleString("en-US");
const dollars = (x: number | null, digits = 4) => (x === null ? "no list price" : `$${x.toFixed(digits)}`);

export function printModelTable(rows: readonly ModelFigures[], tokenizer: string): void {
  console.log(
    `\nthe model, per answered mail (tokens: ${tokenizer}; list prices checked ${MODEL_PRICES_CHECKED}, bench/model-prices.ts)`,
  );
  console.log(
    '  before = two rounds, nothing cached (round 2 only said "done"); now = one round, the prompt cache applied:' +
      " cold = the agent's first mail in five minutes (writes its tools and system prompt), warm = a busy agent's next mail (reads them)",
  );
  for (const r of rows) {
    const share =
      r.warmUsd === null
        ? ""
        : `, model ${((100 * r.warmUsd) / (r.warmUsd + r.awsUsd)).toFixed(0)}% of the mail`;
    console.log(`  ${r.scenario} · ${r.model.label}`);
    console.log(
      `    calls ${r.before.calls} → ${r.warm.calls}; full-price input ${n(r.before.input)} → ${n(r.cold.input)} cold, ${n(r.warm.input)} warm` +
        ` (cache write ${n(r.cold.cacheWrite)} cold / ${n(r.warm.cacheWrite)} warm, cache read ${n(r.warm.cacheRead)} warm); output ${n(r.before.output)} → ${n(r.warm.output)}`,
    );
    console.log(
      `    per mail: model ${dollars(r.beforeUsd, 5)} → ${dollars(r.warmUsd, 5)} warm, AWS $${r.awsUsd.toFixed(6)}; per 1,000 mails: model ${dollars(r.beforeUsd === null ? null : r.beforeUsd * 1000, 2)} → ${dollars(r.warmUsd === null ? null : r.warmUsd * 1000, 2)}, AWS $${(r.awsUsd * 1000).toFixed(4)}${share}`,
    );
  }
}
