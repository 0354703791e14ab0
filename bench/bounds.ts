/**
 * `npm run bench:bounds`: the hostile input shapes the unit tests run for their results (test/helpers/hostile-inputs.ts),
 * timed here against their bounds: no regex that backtracks, no quadratic look-ahead. The tests assert what each
 * shape yields; how long it takes is measured here, where a loaded machine makes a slow row, not a red suite.
 * Each row is the best of 3 runs; the exit code is 1 when a row is over its bound.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { attachmentLimits } from "../shared/config/schema.ts";
import { readHeaderBlock } from "../shared/gate/header-block.ts";
import { readConfirmation } from "../shared/mail/confirm-reading.ts";
import { freshText } from "../shared/mail/fresh-text.ts";
import { parseMail } from "../shared/mail/parse.ts";
import {
  BOUNDS_MS,
  cancelScanShapes,
  crRunHeader,
  flatMultipart,
  freshTextHtml,
  freshTextLines,
  freshTextLongLines,
  longConfirmationLine,
  nestedMultiparts,
  singleLineHeader,
} from "../test/helpers/hostile-inputs.ts";

const defaults = attachmentLimits.parse({});
const big = { ...defaults, maxMessageBytes: 64 << 20 };

async function best(run: () => unknown): Promise<number> {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await run();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

const rows: { name: string; ms: number; bound: number }[] = [];
const row = async (name: string, bound: number, run: () => unknown) =>
  rows.push({ name, ms: await best(run), bound });

for (const [name, text] of freshTextLines)
  await row(`freshText 100k lines: ${name}`, BOUNDS_MS.freshText, () => freshText({ text, html: null }));
for (const [name, text] of freshTextLongLines)
  await row(`freshText 1 MB line: ${name}`, BOUNDS_MS.freshText, () => freshText({ text, html: null }));
for (const [name, html] of freshTextHtml)
  await row(`freshText 1 MB HTML: ${name}`, BOUNDS_MS.freshText, () => freshText({ text: null, html }));
const nested = nestedMultiparts(10_000);
await row("parseMail 10,000 nested multiparts", BOUNDS_MS.nestedMultiparts, () => parseMail(nested, big));
const flat = flatMultipart(100_000);
await row("parseMail 100,000 parts", BOUNDS_MS.flatMultipart, () => parseMail(flat, big));
const header = singleLineHeader(50 << 20);
await row("parseMail 50 MB single-line header", BOUNDS_MS.singleLineHeader, () => parseMail(header, big));
const crs = crRunHeader();
await row("readHeaderBlock 200,000 CRs", BOUNDS_MS.crRunHeader, () => readHeaderBlock(crs));
await row("readConfirmation 1.3 MB line", BOUNDS_MS.longConfirmationLine, () =>
  readConfirmation(longConfirmationLine),
);
for (const [name, text] of cancelScanShapes)
  await row(`readConfirmation 1 MiB cancel scan: ${name}`, BOUNDS_MS.cancelScan, () =>
    readConfirmation(text),
  );
const corpus = join(import.meta.dirname, "../test/fixtures/mime");
let slowest = { name: "", ms: 0 };
for (const file of walk(corpus)) {
  const raw = readFileSync(file);
  const ms = await best(() => parseMail(raw, defaults));
  if (ms >= slowest.ms) slowest = { name: relative(corpus, file), ms };
}
rows.push({
  name: `parseMail MIME corpus, slowest: ${slowest.name}`,
  ms: slowest.ms,
  bound: BOUNDS_MS.corpusMail,
});

const width = Math.max(...rows.map((r) => r.name.length));
console.log(`${"shape".padEnd(width)}  ms (best of 3)  bound`);
for (const r of rows)
  console.log(
    `${r.name.padEnd(width)}  ${r.ms.toFixed(1).padStart(14)}  ${r.bound}${r.ms > r.bound ? "  OVER" : ""}`,
  );
const over = rows.filter((r) => r.ms > r.bound);
console.log(
  over.length === 0 ? `all ${rows.length} rows within their bounds` : `${over.length} rows over their bounds`,
);
if (over.length > 0) process.exitCode = 1;

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (!/^(README|CORPUS-README|LICENSE|COPYRIGHT)|\.tsv$/.test(name)) yield path;
  }
}
