/**
 * `npm run bench:console`: page load times of the operator console on the local emulators with a few thousand
 * runs in the tables (runs, their events, threads and messages, refusals, plans). Each page is fetched over HTTP
 * from the console's own server, signed in, 7 times; the median and the slowest are printed, with the number of
 * DynamoDB calls one view makes. `--runs N` changes the size (default 3000).
 */
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { chromium } from "playwright-core";
import { startEmulators } from "../cli/local/emulators.ts";
import { startLocalConsole } from "../console/server.ts";
import { makeClients } from "../shared/aws/clients.ts";
import type { ObservedCall } from "../shared/aws/observe.ts";
import { TABLE_KEYS, TABLES } from "../shared/config/index.ts";
import { parseConfig } from "../shared/config/load.ts";
import { silentLogger } from "../shared/logger.ts";
import { makeStores } from "../shared/store/stores.ts";
import { CHROMIUM_ARGS, findChromium } from "../test/console/browser-env.ts";

const RUNS = process.argv.includes("--runs")
  ? Number(process.argv[process.argv.indexOf("--runs") + 1])
  : 3000;
const AGENTS = ["helpdesk@agents.example.net", "shop@agents.example.net", "billing@agents.example.net"];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const em = await startEmulators();
const calls: ObservedCall[] = [];
const clients = makeClients(em.resources, (c) => calls.push(c));
const stores = makeStores(clients, em.resources, silentLogger);
const t = em.resources.tables;
// The admin snapshot scans every admin table (small, cached); anything else scanned is a runtime table. Which
// tables are admin tables is the table specs' own `kind` (shared/config/tables.ts), as the stack reads it.
const adminTableNames = new Set(TABLE_KEYS.filter((k) => TABLES[k].kind === "admin").map((k) => t[k]));
const config = parseConfig({
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
});
for (const a of AGENTS) await stores.admin.putAgent({ address: a, name: a.split("@")[0], model: "demo" });

async function batchPut(table: string, items: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let req: Record<string, unknown>[] | undefined = items
      .slice(i, i + 25)
      .map((Item) => ({ PutRequest: { Item } }));
    while (req && req.length > 0) {
      const r = await clients.dynamo.send(new BatchWriteCommand({ RequestItems: { [table]: req as never } }));
      req = r.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined;
    }
  }
}

const seedStart = Date.now();
const base = Date.now() - RUNS * 60_000;
const runs: Record<string, unknown>[] = [];
const events: Record<string, unknown>[] = [];
const threads: Record<string, unknown>[] = [];
const messages: Record<string, unknown>[] = [];
const refusals: Record<string, unknown>[] = [];
for (let i = 0; i < RUNS; i++) {
  const agent = AGENTS[i % AGENTS.length] as string;
  const at = new Date(base + i * 60_000).toISOString();
  const runId = `run-${String(i).padStart(6, "0")}`;
  const threadId = `thread-${i}`;
  const id = `${at.replace(/[-:.Z]/g, "")}-${String(i).padStart(8, "0")}`;
  runs.push({
    runId,
    agent,
    kind: "reply",
    messageId: id,
    responsibilityId: null,
    sender: "carol@customer.example",
    threadId,
    state: "completed",
    round: 2,
    claimedRound: 2,
    maxRounds: 8,
    createdAt: at,
    updatedAt: at,
    correlationId: `ses-${i}`,
    transcriptKey: `transcripts/${runId}.json`,
    finishReason: "model-stopped",
  });
  const types = [
    "budget-check",
    "model-request",
    "model-turn",
    "tool-call",
    "tool-result",
    "round-done",
    "model-turn",
    "run-finished",
  ];
  for (const [j, type] of types.entries())
    events.push({
      runId,
      seq: j + 1,
      type,
      round: j < 6 ? 1 : 2,
      at,
      data: {
        ok: true,
        name: "send_email",
        callId: "c1",
        usage: { inputTokens: 900, outputTokens: 80 },
        state: "completed",
        reason: "model-stopped",
      },
    });
  threads.push({
    agent,
    threadId,
    subject: `Question ${i}`,
    createdAt: at,
    lastMessageAt: at,
    messageCount: 2,
  });
  messages.push({
    agent,
    id,
    direction: "in",
    threadId,
    headerMessageId: `${i}@customer.example`,
    inReplyTo: null,
    references: [],
    from: "carol@customer.example",
    to: [agent],
    cc: [],
    subject: `Question ${i}`,
    at,
    bodyKey: `mail/${agent}/${id}/body.txt`,
    hasHtmlOnly: false,
    attachments: [],
    hop: 0,
    sesMessageId: `ses-${i}`,
  });
  if (i % 2 === 0) {
    const day = at.slice(0, 10);
    refusals.push({
      sesMessageId: `ref-${i}`,
      recipient: agent,
      rawKey: `inbound/ref-${i}`,
      receivedAt: at,
      status: "done",
      claimedAt: at,
      completedAt: at,
      verdict: "refuse",
      reason: i % 6 === 0 ? "access-denied" : "signature-misaligned",
      sender: null,
      agent,
      messageId: null,
      refusalDay: day,
      refusalAt: at,
    });
  }
}
await Promise.all([
  batchPut(t.runs, runs),
  batchPut(t.runEvents, events),
  batchPut(t.threads, threads),
  batchPut(t.messages, messages),
  batchPut(t.inbound, refusals),
]);
const last = messages.at(-AGENTS.length) as { agent: string; bodyKey: string; threadId: string };
await stores.blobs.put(last.bodyKey, "When are you open on Sunday?");
console.log(
  `seeded ${RUNS} runs, ${events.length} run events, ${threads.length} threads, ${messages.length} messages, ${refusals.length} refusals in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
);

const app = await startLocalConsole({
  clients,
  resources: em.resources,
  config,
  logger: silentLogger,
  port: 0,
});
const link = await fetch(app.link(), { redirect: "manual" });
const cookie = (link.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
const get = (path: string) => fetch(`${app.url}${path}`, { headers: { cookie }, redirect: "manual" });
const agent = encodeURIComponent(AGENTS[0] as string);
const runsPage = await (await get(`/agents/${agent}/runs`)).text();
const deepCursor = /cursor=([^"&]+)/.exec(runsPage)?.[1] ?? "";
const lastRun = runs.at(-AGENTS.length) as { runId: string };
const pages: [string, string][] = [
  ["agents (home)", "/"],
  ["agent", `/agents/${agent}`],
  ["runs, page 1", `/agents/${agent}/runs`],
  ["runs, page 2", `/agents/${agent}/runs?cursor=${deepCursor}`],
  ["run timeline", `/runs/${lastRun.runId}`],
  ["threads, page 1", `/agents/${agent}/threads`],
  ["thread", `/agents/${encodeURIComponent(last.agent)}/threads/${last.threadId}`],
  ["refused mail", "/refusals"],
  ["refused mail, one reason", "/refusals?reason=access-denied"],
  ["pending plans", "/plans"],
  ["admin", "/admin"],
  ["audit log", "/audit"],
  ["webhooks", "/webhooks"],
  ["failures", "/failures"],
];
console.log(
  `\n| page | median ms | slowest ms | DynamoDB calls | bytes |\n| --- | ---: | ---: | ---: | ---: |`,
);
for (const [name, path] of pages) {
  const times: number[] = [];
  let ddb = 0;
  let size = 0;
  for (let i = 0; i < 7; i++) {
    calls.length = 0;
    const t0 = performance.now();
    const r = await get(path);
    const body = await r.text();
    times.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    ddb = calls.filter((c) => c.service === "DynamoDB").length;
    size = body.length;
    if (calls.some((c) => c.operation === "Scan" && !adminTableNames.has(String(c.input.TableName))))
      throw new Error(`${path} scanned a runtime table`);
  }
  console.log(
    `| ${name} | ${median(times).toFixed(1)} | ${Math.max(...times).toFixed(1)} | ${ddb} | ${size} |`,
  );
}

// The same pages in Chromium (when installed): navigation start to the load event, stylesheet included.
const chromiumPath = findChromium();
if (chromiumPath) {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  const tab = await (await browser.newContext()).newPage();
  await tab.goto(app.link());
  console.log(`\n| page (Chromium, load event) | median ms | slowest ms |\n| --- | ---: | ---: |`);
  for (const [name, path] of pages) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await tab.goto(`${app.url}${path}`, { waitUntil: "load" });
      // Runs in the page (a string: this file is type-checked without the DOM library).
      const ms = await tab.evaluate(
        "(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; })()",
      );
      times.push(Number(ms));
    }
    console.log(`| ${name} | ${median(times).toFixed(1)} | ${Math.max(...times).toFixed(1)} |`);
  }
  await browser.close();
} else console.log("\n(no Chromium found: browser timings skipped)");
await app.stop();
clients.dynamo.destroy();
await em.stop();
