/**
 * `npm run bench:cost`: what one accepted, answered mail (and one refused mail) costs in AWS calls and in dollars
 * per 1,000 such mails, first without the model. The real pipeline runs in the local stack with every AWS SDK command
 * recorded per function (the same recording the IAM simulation uses); DynamoDB reports its capacity units; each
 * handler invocation is timed and its log lines counted. Prices: bench/aws-prices.ts (one file, source and date).
 *
 * The model: every request agent-step sends the scripted model is recorded, counted with Anthropic's
 * tokenizer and priced at the example catalog's list prices (bench/model-tokens.ts, bench/model-prices.ts), for a
 * one-line question, the fifth message of a thread and a 64,000-character mail, before (two rounds, nothing cached)
 * and now (a reply ends the run, the prompt cache applied).
 *
 * Then the fixed monthly costs (bench/fixed-costs.ts: KMS keys, alarms, dashboard, the log metric filters' custom
 * metrics, PITR, the scheduler tick, the SQS pollers' empty receives, secrets, one secret per webhook endpoint or MCP
 * server), counted from the stack synthesized for COST_CONFIG, and the month's total at 0, 1,000 and 100,000
 * accepted mails. Without COST_CONFIG it also writes bench/cost-measured.json and docs/deploy.md's cost tables
 * (bench/cost-table.ts; test/infra/fixed-costs.test.ts fails when they drift from the template). A tick is measured here too (one `{"tick"}` message through agent-step). Left
 * out: SES's per-GB charges for attachments, storage, and the model.
 *
 * Then the two integrations, registered only after all of the above (so its figures do not move): signed webhook
 * events (one endpoint subscribed to every event type, a receiver on 127.0.0.1 answering 200: the measured mails
 * again, the emitters' and the webhooks worker's extra calls, its invocations at its memory, Secrets Manager reads
 * through the worker's own 60 s cache; and the same figures for the first mails, with no endpoint), and MCP (a local
 * Streamable HTTP server, one tool granted by a toolkit: the per-round listing, one call, the round a first call adds,
 * and agent-step's wait on the server as GB-seconds per 100 ms of latency).
 *
 * Environment: COST_MAILS (accepted mails measured, default 5), COST_ARCHIVE (archived messages added before the
 * last measurement, default 2000: a run's reads must stay flat), COST_DETAIL=1 (every call of the first mail, one
 * line each: function, operation, table or key, units), COST_CONFIG (the deployment config the fixed costs are
 * counted for, default postern.config.example.json).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import nodemailer from "nodemailer";
import { sqsEnqueue, webhooksAdd } from "../cli/commands/webhooks-actions.ts";
import { devSend } from "../cli/local/dev-send.ts";
import { eventsWorker, pipelineHandlers } from "../cli/local/pipeline.ts";
import type { HandlerSet, SqsHandler } from "../cli/local/poller.ts";
import { localSecretsFile } from "../cli/local/secrets-file.ts";
import { type CallIssuer, startLocalStack } from "../cli/local/stack.ts";
import { buildApp } from "../infra/build-app.ts";
import { MEMORY_MB, WEBHOOKS_MEMORY_MB } from "../infra/postern-stack.ts";
import { adminCatalog } from "../shared/admin/catalog.ts";
import { makeClients } from "../shared/aws/clients.ts";
import type { ObservedCall } from "../shared/aws/observe.ts";
import { PREFIXES } from "../shared/config/tables.ts";
import type { KeyedLogger } from "../shared/logger.ts";
import { mcpConnector, mcpServerItem, pinTools } from "../shared/mcp/index.ts";
import { createModel } from "../shared/model/factory.ts";
import type { Message, ModelProvider } from "../shared/model/types.ts";
import { envSecretSource } from "../shared/secrets/index.ts";
import { newMessageId } from "../shared/store/message-repo.ts";
import { makeStores } from "../shared/store/stores.ts";
import { dynamoWebhookState, fileSecretStore, secretManagerStore } from "../shared/webhooks/index.ts";
import { SUBSCRIBERS_MAX_AGE_MS } from "../shared/webhooks/wiring.ts";
import { type HostileServer, startHostileServer } from "../test/helpers/mcp-servers/hostile.ts";
import { grantableNames } from "../tools/index.ts";
import { PRICES } from "./aws-prices.ts";
import {
  exampleCatalog,
  figures,
  type ModelFigures,
  type ModelScenario,
  printModelTable,
} from "./cost-model.ts";
import { DOC_FILE, MEASURED_FILE, writeCostDocs } from "./cost-table.ts";
import { type CfnTemplate, fixedCosts } from "./fixed-costs.ts";
import { type CapturedCall, recording } from "./model-tokens.ts";
import { printTargets, type TargetRow } from "./targets.ts";

type Fn = "verify" | "agentStep" | "outbound";
const FN_OF: Record<CallIssuer, Fn | null> = {
  verify: "verify",
  "agent-step": "agentStep",
  outbound: "outbound",
  // Webhook deliveries scale with the operator's endpoints, not with mail: left out of the per-mail figures above,
  // priced in their own section (one endpoint subscribed to every event type) after them.
  webhooks: null,
  stack: null,
};
const AGENT = "helpdesk@agents.example.net";
const MAILS = Number(process.env.COST_MAILS ?? 5);
/** Archived messages written before the last measurement: a run's reads must not grow with them. */
const ARCHIVE = Number(process.env.COST_ARCHIVE ?? 2000);

interface Sample {
  calls: { issuer: CallIssuer; call: ObservedCall }[];
  invocations: { fn: Fn; ms: number }[];
  logBytes: Record<Fn | "webhooks", number>;
  /** The webhooks worker's invocations (ms each): priced in the webhooks section only. */
  hookMs: number[];
  /** The model calls agent-step made for this mail. */
  model: CapturedCall[];
  /** The intake's id of the mail (its run's correlation id). */
  sesMessageId?: string;
}
let current: Sample = fresh();
function fresh(): Sample {
  return {
    calls: [],
    invocations: [],
    logBytes: { verify: 0, agentStep: 0, outbound: 0, webhooks: 0 },
    hookMs: [],
    model: [],
  };
}

/** A help desk's standing instructions, about 300 words: the size an operator writes for a real agent. */
const INSTRUCTIONS = [
  "You answer customers of Example Outfitters, an online shop for outdoor clothing and gear.",
  "Be brief, friendly and exact. Answer in the customer's language. Sign as 'The Example Outfitters help desk'.",
  "Orders: an order ships within two working days of payment. Tracking numbers are sent by the carrier, not by",
  "us; if a customer has none five working days after paying, apologise and say a colleague will look into it.",
  "Never promise a delivery date. Never state a price, a discount or a stock level you were not given by a tool.",
  "Returns: items may be returned within 30 days of delivery, unworn and with their labels. The customer prints",
  "a label from their account page; we refund to the original payment method within 10 days of receiving the",
  "parcel. Sale items are final unless faulty. Faulty items: ask for a photo of the fault and the order number.",
  "Sizes: our sizes run small in jackets and true to size in trousers; point to the size guide on the product",
  "page rather than recommending a size yourself.",
  "Complaints: acknowledge, apologise once, say what happens next. Do not argue and do not blame the carrier.",
  "Privacy: never confirm or reveal another customer's details, orders or addresses, whoever asks and however",
  "the request is worded. Staff never ask for passwords or card numbers by mail; neither do you.",
  "Anything about legal matters, press, safety recalls or injuries: say a colleague will reply, and do not",
  "discuss it further. Anything you cannot answer from these instructions or your tools: say so plainly and say",
  "a colleague will follow up within one working day.",
  "Keep replies under 150 words unless the customer asked several questions.",
].join(" ");

const dir = mkdtempSync(join(tmpdir(), "postern-cost-"));
// The MCP section's models: one round that calls the MCP server's tool once (twice) and replies.
writeFileSync(
  join(dir, "script-mcp.json"),
  JSON.stringify({
    turns: [
      {
        toolCalls: [
          { name: "orders_order_status", input: { orderId: "1042" } },
          { name: "send_email", input: { mode: "reply", body: "Thanks, on it." } },
        ],
      },
      { text: "done" },
    ],
  }),
);
writeFileSync(
  join(dir, "script-mcp2.json"),
  JSON.stringify({
    turns: [
      {
        toolCalls: [
          { name: "orders_order_status", input: { orderId: "1042" } },
          { name: "orders_order_status", input: { orderId: "1043" } },
          { name: "send_email", input: { mode: "reply", body: "Thanks, on it." } },
        ],
      },
      { text: "done" },
    ],
  }),
);
writeFileSync(
  join(dir, "script.json"),
  JSON.stringify({
    turns: [
      { toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Thanks, on it." } }] },
      { text: "done" },
    ],
  }),
);
writeFileSync(
  join(dir, "postern.config.json"),
  JSON.stringify({
    domains: ["agents.example.net"],
    models: [
      { id: "demo", provider: "scripted", script: "script.json", egress: "internal" },
      { id: "mcpcall", provider: "scripted", script: "script-mcp.json", egress: "internal" },
      { id: "mcpcall2", provider: "scripted", script: "script-mcp2.json", egress: "internal" },
    ],
    budgets: { runsPerSenderPerDay: 10_000, runsPerAgentPerDay: 10_000 },
  }),
);

/** Counts the bytes each function would write to CloudWatch Logs (Powertools writes one JSON line per entry). */
function countingLogger(service: string): KeyedLogger {
  const fn: Fn | "webhooks" =
    service === "verify"
      ? "verify"
      : service === "agent-step"
        ? "agentStep"
        : service === "webhooks"
          ? "webhooks"
          : "outbound";
  const count = (level: string) => (message: string, extra?: unknown) => {
    current.logBytes[fn] +=
      Buffer.byteLength(
        JSON.stringify({
          level,
          message,
          ...(extra as object),
          timestamp: "2026-11-30T00:00:00.000Z",
          service,
        }),
      ) + 1;
  };
  return {
    debug: () => undefined,
    info: count("INFO"),
    warn: count("WARN"),
    error: count("ERROR"),
    appendKeys: () => undefined,
    removeKeys: () => undefined,
  } as unknown as KeyedLogger;
}

/** The config's scripted model, built as the catalog builds it. */
function scripted(loaded: { config: { models: readonly { id: string }[] }; baseDir: string }) {
  const models = new Map<string, ModelProvider>();
  return (id: string): ModelProvider | null => {
    const entry = (loaded.config.models as Parameters<typeof createModel>[0][]).find((m) => m.id === id);
    if (!entry) return null;
    const made =
      models.get(id) ?? createModel(entry, { baseDir: loaded.baseDir, secrets: envSecretSource() });
    models.set(id, made);
    return made;
  };
}

const timed = (fn: Fn, h: SqsHandler | undefined): SqsHandler | undefined =>
  h &&
  (async (event) => {
    const t = performance.now();
    try {
      return await h(event);
    } finally {
      current.invocations.push({ fn, ms: performance.now() - t });
    }
  });

const stack = await startLocalStack({
  dir,
  configPath: join(dir, "postern.config.json"),
  smtpPort: 0,
  waitTimeSeconds: 1,
  // The webhooks section's receiver listens on 127.0.0.1 over http: the local-only setting (never set in AWS).
  webhookLoopback: true,
  observe: (issuer) => (call) => current.calls.push({ issuer, call }),
  handlers: (ctx): HandlerSet => {
    const h = pipelineHandlers(
      ctx,
      countingLogger,
      undefined,
      recording(scripted(ctx.config), (c) => current.model.push(c)),
    );
    // The webhooks worker as its Lambda is wired: Secrets Manager (its 60 s cache included) over the local secrets
    // file, each read it would make recorded as a GetSecretValue call of the function.
    const hookLog = countingLogger("webhooks");
    const events = eventsWorker(
      ctx,
      hookLog,
      makeClients(ctx.resources, ctx.observe?.("webhooks")),
      secretManagerStore({
        async get(name) {
          current.calls.push({
            issuer: "webhooks",
            call: { service: "SecretsManager", operation: "GetSecretValue", input: { SecretId: name } },
          });
          const id = name.slice(name.lastIndexOf("/") + 1);
          const secrets = await fileSecretStore(localSecretsFile(ctx.dir)).read(id);
          return secrets ? JSON.stringify(secrets) : null;
        },
        set: () => Promise.reject(new Error("the worker only reads")),
        remove: () => Promise.reject(new Error("the worker only reads")),
        list: () => Promise.reject(new Error("the worker only reads")),
      }),
    );
    return {
      verify: timed("verify", h.verify),
      agentStep: timed("agentStep", h.agentStep),
      outbound: timed("outbound", h.outbound),
      events: async (event) => {
        const t = performance.now();
        try {
          return await events(event);
        } finally {
          current.hookMs.push(performance.now() - t);
        }
      },
    };
  },
});
const stores = makeStores(stack.clients, stack.resources, { info() {}, warn() {}, error() {} } as never);
// Operator instructions of a realistic size (a help desk's policy, ~300 words): what every request carries, and
// what the prompt cache is for.
await stores.admin.putAgent({ address: AGENT, name: "Help Desk", model: "demo", instructions: INSTRUCTIONS });

const outbox = () =>
  existsSync(stack.outboxDir) ? readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml")).length : 0;
/** Settled when no function has made a call for a second (the pollers' empty receives go on for ever). */
const quiet = async () => {
  const made = () => current.calls.filter((c) => c.issuer !== "stack").length;
  let n = -1;
  while (n !== made()) {
    n = made();
    await new Promise((r) => setTimeout(r, 1000));
  }
};

/** One mail answered: composed (`Order <i>`, "Where is my order?" unless a body is given) or as raw bytes. */
async function accepted(
  i: number,
  mail: { body?: string; raw?: Buffer; from?: string; to?: string } = {},
): Promise<Sample> {
  current = fresh();
  const before = outbox();
  const sent = await devSend({
    dir,
    zoneFile: stack.zoneFile,
    from: mail.from ?? `carol${i}@customer.example`,
    to: [mail.to ?? AGENT],
    ...(mail.raw ? { raw: mail.raw } : { subject: `Order ${i}`, body: mail.body ?? "Where is my order?" }),
    port: stack.smtp.port,
  });
  if (!sent.ok) throw new Error(sent.reason);
  if (sent.sesMessageId) current.sesMessageId = sent.sesMessageId;
  const until = Date.now() + 30_000;
  while (outbox() === before) {
    if (Date.now() > until)
      throw new Error(
        `no reply to mail ${i}: calls ${current.calls.map((c) => `${c.issuer}:${c.call.service}:${c.call.operation}${c.call.error ? `!${c.call.error}` : ""}`).join(" ")}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
  await quiet();
  return current;
}

/** What the run's saved transcript holds after its first request: the model's turn and the send's result. */
async function transcriptTail(s: Sample): Promise<Message[]> {
  const run = (await stores.runs.listRecent(20)).find((r) => r.correlationId === s.sesMessageId);
  if (!run) throw new Error(`no run for ${s.sesMessageId}`);
  const object = await stack.clients.s3.send(
    new GetObjectCommand({ Bucket: stack.resources.bucket, Key: `${PREFIXES.transcripts}${run.runId}.json` }),
  );
  const transcript = JSON.parse((await object.Body?.transformToString()) ?? "{}") as { messages: Message[] };
  return transcript.messages.slice(s.model[0]?.request.messages.length ?? 0);
}

/** The Message-ID of the newest reply in the outbox (to thread the next mail under it). */
function lastReplyId(): string {
  const files = readdirSync(stack.outboxDir)
    .filter((f) => f.endsWith(".eml"))
    .map((f) => ({ f, at: statSync(join(stack.outboxDir, f)).mtimeMs }))
    .sort((a, b) => a.at - b.at);
  const newest = files.at(-1);
  if (!newest) throw new Error("no reply in the outbox");
  const id = /^Message-ID:\s*(<[^>]+>)/im.exec(readFileSync(join(stack.outboxDir, newest.f), "latin1"))?.[1];
  if (!id) throw new Error(`no Message-ID in ${newest.f}`);
  return id;
}

/** A mail in a thread: signed In-Reply-To/References under the agent's last reply (mailauth signs them). */
function threaded(from: string, subject: string, body: string, parents: readonly string[]): Buffer {
  return Buffer.from(
    [
      `From: ${from}`,
      `To: ${AGENT}`,
      `Subject: ${subject}`,
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${Math.random().toString(36).slice(2)}@customer.example>`,
      ...(parents.length > 0 ? [`In-Reply-To: ${parents.at(-1)}`, `References: ${parents.join(" ")}`] : []),
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "",
      body,
      "",
    ].join("\r\n"),
  );
}

/** The fifth message of a thread: three mails from one customer, each answered, the third measured. */
async function fifthOfThread(): Promise<Sample> {
  const from = "dana@customer.example";
  const parents: string[] = [];
  const questions = [
    "Hello, I ordered the Ridge 2 jacket in size M last Tuesday (order 48213) and have had no tracking number yet. Could you check where it is?",
    "Thanks. It arrived today, but the zip on the left pocket is broken. Can I exchange it for a new one in the same size?",
    "I sent the photo of the zip yesterday. Do I need to print a return label myself, and will the new jacket ship before the old one arrives back?",
  ];
  let sample: Sample | null = null;
  for (const [k, q] of questions.entries()) {
    const raw = threaded(
      from,
      k === 0 ? "Ridge 2 jacket order 48213" : "Re: Ridge 2 jacket order 48213",
      q,
      parents,
    );
    sample = await accepted(100 + k, { raw, from });
    const id = /^Message-ID:\s*(<[^>]+>)/im.exec(raw.toString("latin1"))?.[1];
    if (id) parents.push(id);
    parents.push(lastReplyId());
  }
  if (!sample) throw new Error("no thread");
  return sample;
}

/** A mail whose body is 64,000 characters (the most round 1 shows of the answered mail). */
function longBody(): string {
  const paragraph =
    "I am writing again about the order I placed for our club's winter trip, because the delivery note lists items " +
    "we did not order and leaves out others we did. Below I have copied the whole list as we sent it, with sizes, " +
    "so that you can compare it line by line with what arrived in the three parcels last week. ";
  let body = "";
  while (body.length < 64_000) body += `${paragraph}\n\n`;
  return body.slice(0, 64_000);
}

async function refused(): Promise<Sample> {
  current = fresh();
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: stack.smtp.port,
    secure: false,
    ignoreTLS: true,
  });
  await transport.sendMail({
    from: "mallory@evil.example",
    to: AGENT,
    subject: "hi",
    text: "unsigned",
    envelope: { from: "mallory@evil.example", to: [AGENT] },
  });
  transport.close();
  await new Promise((r) => setTimeout(r, 500));
  await quiet();
  return current;
}

/** `n` archived messages of the agent, in 500 other threads, as verify stores them (bodies are never read here). */
async function fillArchive(n: number): Promise<void> {
  const at = new Date("2026-01-01T00:00:00Z").getTime();
  for (let i = 0; i < n; i += 25) {
    const items = Array.from({ length: Math.min(25, n - i) }, (_, j) => {
      const id = newMessageId(new Date(at + (i + j) * 1000));
      return {
        PutRequest: {
          Item: {
            agent: AGENT,
            id,
            direction: "in",
            threadId: `archived-${(i + j) % 500}`,
            headerMessageId: `${id}@archive.example`,
            inReplyTo: null,
            references: [],
            from: `someone${(i + j) % 97}@customer.example`,
            to: [AGENT],
            cc: [],
            subject: "An older question about an order, padded like real mail subjects tend to be",
            at: new Date(at + (i + j) * 1000).toISOString(),
            bodyKey: `mail/${AGENT}/${id}/body.txt`,
            hasHtmlOnly: false,
            attachments: [],
            hop: 0,
          },
        },
      };
    });
    await stack.clients.dynamo.send(
      new BatchWriteCommand({ RequestItems: { [stack.resources.tables.messages]: items } }),
    );
  }
}

/**
 * Write units DynamoDB also charges for a write's global secondary index copies, which dynalite does not report
 * (its ConsumedCapacity covers the table only). Our indexes project every attribute (CDK's default), so a write to
 * an item the index holds costs the index what it costs the table. Which items an index holds: every message
 * (byThread), every run (byAgent), a thread once it has activity (byActivity: counted on every thread write, an
 * upper bound), and plan items in `state` (plansByState, pk `plan#`).
 */
function indexWriteUnits(c: ObservedCall): number {
  const table = String(c.input.TableName ?? "");
  const { messages, runs, threads, state } = stack.resources.tables;
  const units = c.capacityUnits ?? 1;
  if ([messages, runs, threads].includes(table)) return units;
  if (table === state) {
    const key = (c.input.Key ?? c.input.Item) as { pk?: unknown } | undefined;
    return String(key?.pk ?? "").startsWith("plan#") ? units : 0;
  }
  return 0;
}

/** Read units of the thread-history reads (agent-step's queries of the messages table) in a sample. */
const threadReadUnits = (s: Sample) =>
  s.calls
    .filter(
      (c) =>
        c.issuer === "agent-step" &&
        c.call.operation === "Query" &&
        c.call.input.TableName === stack.resources.tables.messages,
    )
    .reduce((a, c) => a + (c.call.capacityUnits ?? 0.5), 0);

const DYNAMO_WRITES = new Set(["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"]);

/** DynamoDB capacity of recorded calls: table write units, the index copies dynalite leaves out, read units. */
function dynamoUnits(calls: readonly { call: ObservedCall }[]): {
  wru: number;
  indexWru: number;
  rru: number;
} {
  const ddb = calls.filter((c) => c.call.service === "DynamoDB");
  const writes = ddb.filter((c) => DYNAMO_WRITES.has(c.call.operation));
  return {
    wru: writes.reduce((a, c) => a + (c.call.capacityUnits ?? 1), 0),
    indexWru: writes.reduce((a, c) => a + indexWriteUnits(c.call), 0),
    rru: ddb
      .filter((c) => !DYNAMO_WRITES.has(c.call.operation))
      .reduce((a, c) => a + (c.call.capacityUnits ?? 0.5), 0),
  };
}

/** The cost and scale rows this benchmark measures, beside the figures before that work (bench/targets.ts). */
function targetRows(samples: Sample[], archived: { run: number; thread: number } | null): TargetRow[] {
  const per = (f: (s: Sample) => number) => samples.reduce((a, s) => a + f(s), 0) / samples.length;
  const own = (s: Sample) => s.calls.filter((c) => FN_OF[c.issuer] !== null);
  const calls = per((s) => own(s).length + 2 * s.invocations.length);
  const wru = per((s) => dynamoUnits(own(s)).wru);
  const indexWru = per((s) => dynamoUnits(own(s)).indexWru);
  const scans = per((s) => own(s).filter((c) => c.call.operation === "Scan").length);
  const lines = mean(samples.map(bill));
  const beforeSes = lines.filter((l) => !l.service.startsWith("SES ")).reduce((a, l) => a + l.usd, 0) * 1000;
  const indexUsd = indexWru * PRICES.dynamodb.perWriteUnit * 1000;
  return [
    {
      what: "AWS calls per accepted, answered mail",
      before: "103",
      now: calls.toFixed(0),
      target: "≤ 60",
      met: calls <= 60,
    },
    {
      what: "DynamoDB write units per such mail (table; + index copies)",
      before: "53",
      now: `${wru.toFixed(0)} (+ ${indexWru.toFixed(0)})`,
      target: "≤ 40",
      met: wru <= 40,
    },
    {
      what: "Scans in the per-mail path",
      before: "20",
      now: scans.toFixed(0),
      target: "0",
      met: scans === 0,
    },
    ...(archived
      ? [
          {
            what: `thread history read units per run at ${ARCHIVE} archived (whole run)`,
            before: "1,559 at 30,000",
            now: `${archived.thread.toFixed(1)} (${archived.run.toFixed(1)})`,
            target: "≤ 5, flat",
            met: archived.thread <= 5,
          },
        ]
      : []),
    {
      what: "$ per 1,000 mails before SES fees (without; with index copies)",
      before: "$0.095",
      now: `$${(beforeSes - indexUsd).toFixed(4)}; $${beforeSes.toFixed(4)}`,
      target: "≤ $0.05",
      met: beforeSes - indexUsd <= 0.05,
    },
  ];
}

/**
 * The model-cost rows: model calls per simple reply, full-price input tokens at a busy agent's second mail, AWS calls,
 * and dollars per 1,000 mails before SES and the model, then with the model for each priced catalog model. The
 * "before" column quotes the figures before the model-cost work (AWS side) or is this run's own before figure (the model side).
 */
function modelCostRows(samples: Sample[], models: readonly ModelFigures[]): TargetRow[] {
  const per = (f: (s: Sample) => number) => samples.reduce((a, s) => a + f(s), 0) / samples.length;
  const calls = per((s) => s.calls.filter((c) => FN_OF[c.issuer] !== null).length + 2 * s.invocations.length);
  const modelCalls = per((s) => s.model.length);
  const lines = mean(samples.map(bill));
  const beforeSes = lines.filter((l) => !l.service.startsWith("SES ")).reduce((a, l) => a + l.usd, 0) * 1000;
  // The issue's $0.060 left out the index copies (it quoted $0.066 with them): judged on the same basis.
  const indexCopies =
    lines.filter((l) => l.service.startsWith("DynamoDB index copies")).reduce((a, l) => a + l.usd, 0) * 1000;
  const simple = models.filter((m) => m.scenario === "a one-line question" && m.model.price !== null);
  return [
    {
      what: "model calls per simple reply",
      before: "2",
      now: modelCalls.toFixed(0),
      target: "1",
      met: modelCalls <= 1,
    },
    ...simple.map((m) => ({
      what: `full-price input tokens per simple reply, a busy agent's next mail: ${m.model.id}`,
      before: m.before.input.toLocaleString("en-US"),
      now: m.warm.input.toLocaleString("en-US"),
      target: `≤ ${Math.floor(m.before.input / 2).toLocaleString("en-US")}`,
      met: m.warm.input <= m.before.input / 2,
    })),
    {
      what: "AWS calls per answered mail",
      before: "69",
      now: calls.toFixed(0),
      target: "≤ 55",
      met: calls <= 55,
    },
    {
      what: "$ per 1,000 mails before SES and the model (with index copies)",
      before: "$0.060 ($0.066)",
      now: `$${(beforeSes - indexCopies).toFixed(4)} ($${beforeSes.toFixed(4)})`,
      target: "≤ $0.05",
      met: beforeSes - indexCopies <= 0.05,
    },
    ...simple.map((m) => {
      const before = ((m.beforeUsd ?? 0) + m.awsUsd) * 1000;
      const now = ((m.warmUsd ?? 0) + m.awsUsd) * 1000;
      return {
        what: `$ per 1,000 simple replies, model + AWS (AWS as measured now in both): ${m.model.id}`,
        before: `$${before.toFixed(2)}`,
        now: `$${now.toFixed(2)}`,
        target: "lower",
        met: now < before,
      };
    }),
  ];
}

/** DynamoDB read units one function consumed in a sample. */
const readUnits = (s: Sample, issuer: CallIssuer) =>
  s.calls
    .filter((c) => c.issuer === issuer && c.call.service === "DynamoDB")
    .filter((c) => !["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"].includes(c.call.operation))
    .reduce((a, c) => a + (c.call.capacityUnits ?? 0.5), 0);

interface Line {
  service: string;
  calls: number;
  usd: number;
}
/** One mail's bill, by service: the recorded calls priced, plus what AWS charges around them. */
function bill(s: Sample): Line[] {
  const byFn = (c: { issuer: CallIssuer }) => FN_OF[c.issuer];
  const own = s.calls.filter((c) => byFn(c) !== null);
  const count = (service: string, ops?: string[]) =>
    own.filter((c) => c.call.service === service && (!ops || ops.includes(c.call.operation))).length;
  const { wru, indexWru, rru } = dynamoUnits(own);
  // SES's S3 action writes the raw mail: a PUT billed to the bucket's owner, us.
  const sesPuts = s.calls.filter(
    (c) => c.issuer === "stack" && c.call.service === "S3" && c.call.operation === "PutObject",
  ).length;
  const puts = count("S3", ["PutObject"]) + sesPuts;
  const gets = count("S3", ["GetObject", "HeadObject"]);
  // Lambda's event source receives and deletes once per invocation (batch); sends are ours.
  const sqsRequests = count("SQS", ["SendMessage", "SendMessageBatch"]) + 2 * s.invocations.length;
  const gbSeconds = s.invocations.reduce(
    (a, i) => a + (Math.ceil(i.ms) / 1000) * (MEMORY_MB[i.fn] / 1024),
    0,
  );
  const logGb = Object.values(s.logBytes).reduce((a, b) => a + b, 0) / 1024 ** 3;
  const received = s.calls.some(
    (c) => c.issuer === "stack" && c.call.service === "S3" && c.call.operation === "PutObject",
  )
    ? 1
    : 0;
  const sent = count("SESv2", ["SendEmail"]);
  return [
    {
      service: `DynamoDB (${count("DynamoDB")} calls: ${wru} WRU, ${rru} RRU)`,
      calls: count("DynamoDB"),
      usd: wru * PRICES.dynamodb.perWriteUnit + rru * PRICES.dynamodb.perReadUnit,
    },
    {
      service: `DynamoDB index copies (${indexWru} WRU; dynalite leaves them out)`,
      calls: 0,
      usd: indexWru * PRICES.dynamodb.perWriteUnit,
    },
    {
      service: `S3 (${puts} PUT, ${gets} GET)`,
      calls: puts + gets,
      usd: puts * PRICES.s3.perPut + gets * PRICES.s3.perGet,
    },
    {
      service: `SQS (${count("SQS", ["SendMessage", "SendMessageBatch"])} sends + receive/delete per invocation)`,
      calls: sqsRequests,
      usd: sqsRequests * PRICES.sqs.perRequest,
    },
    {
      service: `Lambda (${s.invocations.length} invocations, ${gbSeconds.toFixed(3)} GB-s)`,
      calls: s.invocations.length,
      usd: s.invocations.length * PRICES.lambda.perRequest + gbSeconds * PRICES.lambda.perGbSecondArm,
    },
    { service: "SNS (SES receipt notification)", calls: received, usd: received * PRICES.sns.perPublish },
    {
      service: "KMS (encrypted intake topic, at most one data key per notification)",
      calls: received,
      usd: received * PRICES.kms.perRequest,
    },
    {
      service: `CloudWatch Logs (${Object.values(s.logBytes).reduce((a, b) => a + b, 0)} bytes)`,
      calls: 0,
      usd: logGb * PRICES.logs.perGbIngested,
    },
    {
      service: "SES receiving (1 mail, 1 chunk)",
      calls: received,
      usd: received * (PRICES.ses.perMailReceived + PRICES.ses.perIncomingChunk),
    },
    { service: `SES sending (${sent} mail)`, calls: sent, usd: sent * PRICES.ses.perMailSent },
  ];
}

/** One recorded call on one line (COST_DETAIL=1): which function, what, where, how many units. */
function describeCall(c: { issuer: CallIssuer; call: ObservedCall }): string {
  const i = c.call.input as Record<string, unknown>;
  const where = [
    i.TableName,
    i.Bucket && `${String(i.Bucket).slice(0, 12)}/${String(i.Key)}`,
    i.QueueUrl && String(i.QueueUrl).split("/").pop(),
  ]
    .filter(Boolean)
    .join(" ");
  const key =
    i.Key && !i.Bucket
      ? JSON.stringify(i.Key)
      : i.Item
        ? JSON.stringify(Object.fromEntries(Object.entries(i.Item as object).slice(0, 2)))
        : "";
  return `  ${c.issuer.padEnd(10)} ${`${c.call.service}:${c.call.operation}`.padEnd(22)} ${where} ${key.slice(0, 90)} ${c.call.capacityUnits ?? ""}${c.call.error ? ` !${c.call.error}` : ""}`;
}

const mean = (lines: Line[][]): Line[] =>
  (lines[0] ?? []).map((l, i) => ({
    service: l.service,
    calls: lines.reduce((a, x) => a + (x[i]?.calls ?? 0), 0) / lines.length,
    usd: lines.reduce((a, x) => a + (x[i]?.usd ?? 0), 0) / lines.length,
  }));

function print(title: string, lines: Line[], samples: Sample[]): void {
  const sesFees = lines.filter((l) => l.service.startsWith("SES ")).reduce((a, l) => a + l.usd, 0);
  const total = lines.reduce((a, l) => a + l.usd, 0);
  const calls = samples.map(
    (s) => s.calls.filter((c) => FN_OF[c.issuer] !== null).length + 2 * s.invocations.length,
  );
  console.log(`\n${title}`);
  console.log(
    `  AWS calls per mail (SDK calls of the functions + Lambda's receive/delete per invocation): ${(calls.reduce((a, b) => a + b, 0) / calls.length).toFixed(1)}`,
  );
  const perFn = (fn: CallIssuer) =>
    samples.reduce((a, s) => a + s.calls.filter((c) => c.issuer === fn).length, 0) / samples.length;
  console.log(
    `  by function: verify ${perFn("verify").toFixed(1)}, agent-step ${perFn("agent-step").toFixed(1)}, outbound ${perFn("outbound").toFixed(1)}`,
  );
  const ops = new Map<string, number>();
  for (const s of samples)
    for (const c of s.calls.filter((x) => FN_OF[x.issuer] !== null))
      ops.set(
        `${c.call.service}:${c.call.operation}`,
        (ops.get(`${c.call.service}:${c.call.operation}`) ?? 0) + 1 / samples.length,
      );
  console.log(
    `  by operation: ${[...ops]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(", ")}`,
  );
  console.log("  $ per 1,000 mails:");
  for (const l of lines) console.log(`    ${l.service.padEnd(78)} $${(l.usd * 1000).toFixed(4)}`);
  console.log(`    ${"total before SES's own fees".padEnd(78)} $${((total - sesFees) * 1000).toFixed(4)}`);
  console.log(`    ${"total with SES receiving and sending".padEnd(78)} $${(total * 1000).toFixed(4)}`);
}

/** One scheduler tick through agent-step, as the deployed schedule sends it. */
async function tick(): Promise<Sample> {
  current = fresh();
  await stack.clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: stack.resources.queues.agentStep,
      MessageBody: JSON.stringify({ tick: new Date().toISOString() }),
    }),
  );
  const until = Date.now() + 30_000;
  while (!current.invocations.some((i) => i.fn === "agentStep") && Date.now() < until)
    await new Promise((r) => setTimeout(r, 100));
  await quiet();
  return current;
}

/** The template a deployment of COST_CONFIG synthesizes (no bundling, no cdk-nag: only resources are counted). */
function template(): CfnTemplate {
  const configFile = process.env.COST_CONFIG ?? "postern.config.example.json";
  const { app, stack: s } = buildApp({
    projectRoot: process.cwd(),
    configFile,
    outdir: join(dir, "cdk.out"),
    bundle: false,
    nag: false,
    env: { account: "111111111111", region: PRICES.region },
  });
  return app.synth().getStackByName(s.stackName).template as CfnTemplate;
}

/** Fixed lines, then the month at each volume: fixed + the measured per-mail cost (SES fees included). */
function printMonth(samples: Sample[], tickSample: Sample): void {
  const wru = samples.reduce(
    (a, s) =>
      a +
      s.calls
        .filter((c) => FN_OF[c.issuer] && c.call.service === "DynamoDB")
        .filter((c) => ["PutItem", "UpdateItem", "BatchWriteItem"].includes(c.call.operation))
        .reduce((b, c) => b + (c.call.capacityUnits ?? 1), 0),
    0,
  );
  // One write unit is up to 1 KB written: an upper bound on what a mail leaves in the tables.
  const storedKbPerMail = Math.ceil(wru / samples.length);
  const tickMs = Math.ceil(
    tickSample.invocations.filter((i) => i.fn === "agentStep").reduce((a, i) => a + i.ms, 0),
  );
  const tickOptions = {
    ms: tickMs,
    memoryMb: MEMORY_MB.agentStep,
    readUnits: readUnits(tickSample, "agent-step"),
  };
  const perMail = mean(samples.map(bill)).reduce((a, l) => a + l.usd, 0);
  const t = template();
  console.log(
    `\nfixed monthly costs (${process.env.COST_CONFIG ?? "postern.config.example.json"}; 30-day month; us-east-1 list prices):`,
  );
  for (const l of fixedCosts(t, { mailsPerMonth: 0, storedKbPerMail, tick: tickOptions }))
    console.log(`    ${l.what.padEnd(100)} $${l.usd.toFixed(2)}`);
  console.log("  the month, model excluded (fixed + per-mail measured above, SES fees included):");
  for (const mails of [0, 1_000, 100_000]) {
    const fixed = fixedCosts(t, { mailsPerMonth: mails, storedKbPerMail, tick: tickOptions }).reduce(
      (a, l) => a + l.usd,
      0,
    );
    console.log(
      `    ${`${mails.toLocaleString("en-US")} mails`.padEnd(14)} fixed $${fixed.toFixed(2)} + per-mail $${(perMail * mails).toFixed(2)} = $${(fixed + perMail * mails).toFixed(2)}`,
    );
  }
  // docs/deploy.md's tables describe the example config; a run for another config only prints.
  if (process.env.COST_CONFIG === undefined) {
    writeCostDocs(t, {
      measured: new Date().toISOString().slice(0, 10),
      config: "postern.config.example.json",
      tick: tickOptions,
      storedKbPerMail,
      perMailUsd: perMail,
    });
    console.log(`  wrote ${MEASURED_FILE} and the cost tables in ${DOC_FILE}`);
  }
}

/** Calls priced on their own (a section's extra calls): DynamoDB with its units, S3, SQS sends, Secrets Manager. */
function priceCalls(calls: readonly { call: ObservedCall }[]): { usd: number; wru: number; rru: number } {
  // Index copies included: this table prices one figure per line.
  const units = dynamoUnits(calls);
  const wru = units.wru + units.indexWru;
  const { rru } = units;
  const n = (service: string, ops: string[]) =>
    calls.filter((c) => c.call.service === service && ops.includes(c.call.operation)).length;
  const usd =
    wru * PRICES.dynamodb.perWriteUnit +
    rru * PRICES.dynamodb.perReadUnit +
    n("S3", ["PutObject"]) * PRICES.s3.perPut +
    n("S3", ["GetObject", "HeadObject"]) * PRICES.s3.perGet +
    n("SQS", ["SendMessage", "SendMessageBatch"]) * PRICES.sqs.perRequest +
    calls.filter((c) => c.call.service === "SecretsManager").length * PRICES.secretsManager.perApiCall;
  return { usd, wru, rru };
}

/** `DynamoDB:UpdateItem state 2.0` per sample: a set of calls, averaged, by operation and table or queue. */
function opsOf(calls: readonly { call: ObservedCall }[][]): Map<string, number> {
  const m = new Map<string, number>();
  const t = stack.resources.tables as Record<string, string>;
  const q = stack.resources.queues as Record<string, string | undefined>;
  const tableName = (x: unknown) => Object.keys(t).find((k) => t[k] === x) ?? String(x ?? "");
  const queueName = (x: unknown) => Object.keys(q).find((k) => q[k] === x) ?? "";
  for (const list of calls)
    for (const c of list) {
      const i = c.call.input;
      const pk = String(((i.Key ?? i.Item) as { pk?: unknown } | undefined)?.pk ?? "");
      const prefix =
        i.TableName === stack.resources.tables.state && pk.includes("#") ? ` ${pk.split("#")[0]}#` : "";
      const where = i.TableName
        ? `${tableName(i.TableName)}${prefix}`
        : i.QueueUrl
          ? queueName(i.QueueUrl)
          : "";
      const k = `${c.call.service}:${c.call.operation}${where ? ` ${where}` : ""}`;
      m.set(k, (m.get(k) ?? 0) + 1 / calls.length);
    }
  return m;
}
const showOps = (m: Map<string, number>, scale = 1) =>
  [...m]
    .filter(([, v]) => Math.abs(v) > 1e-9)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v * scale).toFixed(1)}`)
    .join(", ") || "none";
const gbSecondsOf = (ms: number, memoryMb: number) => (Math.ceil(ms) / 1000) * (memoryMb / 1024);

/** The emitters' calls for events: reads of the webhooks table and sends to the events queue. */
const emitterHookCalls = (s: Sample) =>
  s.calls.filter(
    (c) =>
      ["verify", "agent-step", "outbound"].includes(c.issuer) &&
      (c.call.input.TableName === stack.resources.tables.webhooks ||
        (stack.resources.queues.events !== undefined &&
          c.call.input.QueueUrl === stack.resources.queues.events)),
  );

/** A webhooks bill per mail: the extra calls (emitters' and the worker's), its invocations, its logs. */
function hookBill(s: Sample) {
  const calls = [...emitterHookCalls(s), ...s.calls.filter((c) => c.issuer === "webhooks")];
  const priced = priceCalls(calls);
  const receives = 2 * s.hookMs.length;
  const gbs = s.hookMs.reduce((a, ms) => a + gbSecondsOf(ms, WEBHOOKS_MEMORY_MB), 0);
  const lambda = s.hookMs.length * PRICES.lambda.perRequest + gbs * PRICES.lambda.perGbSecondArm;
  const logs = (s.logBytes.webhooks / 1024 ** 3) * PRICES.logs.perGbIngested;
  return {
    calls,
    priced,
    receives,
    gbs,
    lambda,
    logs,
    usd: priced.usd + receives * PRICES.sqs.perRequest + lambda + logs,
  };
}

/** The events the emitters queued in a sample (one SQS send each to the events queue). */
const eventsQueued = (s: Sample) =>
  emitterHookCalls(s).filter((c) => c.call.service === "SQS" && c.call.operation === "SendMessage").length;

function printHookTable(title: string, samples: Sample[], deliveries: number[] | null): void {
  const per = (f: (s: Sample, k: number) => number) =>
    (samples.reduce((a, s, k) => a + f(s, k), 0) / samples.length) * 1000;
  const bills = samples.map(hookBill);
  const avg = (f: (b: ReturnType<typeof hookBill>) => number) =>
    (bills.reduce((a, b) => a + f(b), 0) / bills.length) * 1000;
  const byFn = (issuer: CallIssuer) =>
    opsOf(samples.map((s) => hookBill(s).calls.filter((c) => c.issuer === issuer)));
  console.log(`\n${title}`);
  console.log(
    `  per 1,000 answered mails: ${per(eventsQueued).toFixed(0)} events emitted, ${deliveries ? `${per((_, k) => deliveries[k] ?? 0).toFixed(0)} deliveries made (signed POSTs the receiver answered 200)` : "no endpoint to deliver to"}`,
  );
  console.log("  extra AWS calls per 1,000 mails, by function:");
  for (const fn of ["verify", "agent-step", "outbound", "webhooks"] as const)
    console.log(`    ${fn.padEnd(10)} ${showOps(byFn(fn), 1000)}`);
  console.log(
    `    webhooks   + Lambda's receive/delete per invocation: SQS ${avg((b) => b.receives).toFixed(0)}`,
  );
  const lines: [string, number][] = [
    [
      `DynamoDB (${avg((b) => b.priced.wru).toFixed(0)} WRU with index copies, ${avg((b) => b.priced.rru).toFixed(0)} RRU)`,
      avg((b) => priceCalls(b.calls.filter((c) => c.call.service === "DynamoDB")).usd),
    ],
    [
      `SQS (${avg((b) => b.calls.filter((c) => c.call.service === "SQS").length).toFixed(0)} sends + ${avg((b) => b.receives).toFixed(0)} receive/delete)`,
      avg(
        (b) => (b.calls.filter((c) => c.call.service === "SQS").length + b.receives) * PRICES.sqs.perRequest,
      ),
    ],
    [
      `Secrets Manager (${avg((b) => b.calls.filter((c) => c.call.service === "SecretsManager").length).toFixed(0)} GetSecretValue: the worker's 60 s cache, one warm worker)`,
      avg((b) => priceCalls(b.calls.filter((c) => c.call.service === "SecretsManager")).usd),
    ],
    [
      `Lambda webhooks (${per((s) => s.hookMs.length).toFixed(0)} invocations, ${avg((b) => b.gbs).toFixed(3)} GB-s at ${WEBHOOKS_MEMORY_MB} MB)`,
      avg((b) => b.lambda),
    ],
    [`CloudWatch Logs (webhooks, ${per((s) => s.logBytes.webhooks).toFixed(0)} bytes)`, avg((b) => b.logs)],
  ];
  console.log("  $ per 1,000 mails:");
  for (const [what, usd] of lines) console.log(`    ${what.padEnd(78)} $${usd.toFixed(4)}`);
  console.log(`    ${"total extra".padEnd(78)} $${avg((b) => b.usd).toFixed(4)}`);
  if (deliveries) {
    const uncached = per((_, k) => deliveries[k] ?? 0) * PRICES.secretsManager.perApiCall;
    console.log(
      `    ${"(at most, a cold worker for every delivery: one GetSecretValue each".padEnd(78)} $${uncached.toFixed(4)})`,
    );
  }
}

/** Webhooks: the measured mails again, one endpoint subscribed to every event type; and the same without one. */
async function webhooksSection(baseline: Sample[], setUp: () => Promise<void>): Promise<Sample[]> {
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  try {
    const state = dynamoWebhookState({ dynamo: stack.clients.dynamo, tables: stack.resources.tables });
    const silent = { out() {}, err() {} };
    await webhooksAdd(
      {
        repo: stores.admin,
        secrets: fileSecretStore(localSecretsFile(stack.dir)),
        log: state.log,
        breaker: (id) => state.breaker.get(id),
        enqueue: sqsEnqueue(stack.clients.sqs, stack.resources.queues.events),
        // The bench's receiver is on this machine: the stack it starts reaches loopback.
        reach: { resolve: async () => ["127.0.0.1"], allowLoopback: true, local: true },
      },
      silent,
      {
        id: "bench",
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: "all",
        secretOut: join(dir, "bench.secret"),
      },
      adminCatalog(stack.config.config, grantableNames()),
    );
    await setUp();
    // The emitters trust their last read of the endpoints for SUBSCRIBERS_MAX_AGE_MS: past it, every one reads again.
    await new Promise((r) => setTimeout(r, SUBSCRIBERS_MAX_AGE_MS + 1000));
    const hooked = async (i: number): Promise<{ s: Sample; delivered: number }> => {
      const before = received;
      const s = await accepted(i);
      const until = Date.now() + 30_000;
      while (received - before < eventsQueued(s) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      await quiet();
      return { s, delivered: received - before };
    };
    await hooked(300); // warm-up: the worker's first invocations pay module loading, as a cold Lambda would
    const samples: Sample[] = [];
    const deliveries: number[] = [];
    for (let i = 1; i <= MAILS; i++) {
      const { s, delivered } = await hooked(300 + i);
      samples.push(s);
      deliveries.push(delivered);
    }
    printHookTable(
      `webhooks: one endpoint subscribed to every event type (a receiver on 127.0.0.1 answering 200), the ${MAILS} mails again`,
      samples,
      deliveries,
    );
    printHookTable(
      `webhooks: no endpoint registered (the ${MAILS} accepted mails measured first)`,
      baseline,
      null,
    );
    return samples;
  } finally {
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

const MCP_LISTS = "orders-desk@agents.example.net";
const MCP_CALLS = "orders-call@agents.example.net";
const MCP_CALLS2 = "orders-call2@agents.example.net";
const MCP_RUNS = 3;
const loopback = mcpConnector({
  resolve: async () => ["127.0.0.1"],
  secret: async () => undefined,
  local: { allowStdio: false, allowLoopback: true },
});

/**
 * The MCP section's world: a local Streamable HTTP server (the test suite's, with a plain answer), its order_status
 * tool pinned as a read, a toolkit granting it to two agents: one whose model only replies (the per-round listing),
 * one whose model calls the tool in the same round as its reply (the call).
 */
async function mcpSetUp(): Promise<HostileServer> {
  const server = await startHostileServer({ injection: "Order 1042: shipped on 28 November." });
  const item = mcpServerItem.parse({ id: "orders", transport: "http", url: server.url });
  const session = await loopback(item);
  const listed = await session.listTools();
  await session.close();
  const pins = pinTools("orders", listed, [{ name: "order_status", class: "read" }], new Date());
  if (!pins.ok) throw new Error(pins.detail);
  const put = await stores.admin.putMcpServer({ ...item, tools: pins.pins });
  if (!put.ok) throw new Error("the MCP server item was refused");
  for (const [address, model] of [
    [MCP_LISTS, "demo"],
    [MCP_CALLS, "mcpcall"],
    [MCP_CALLS2, "mcpcall2"],
  ] as const)
    await stores.admin.putAgent({ address, name: "Orders", model, instructions: INSTRUCTIONS });
  const kit = await stores.admin.putToolkit({
    id: "orders",
    agents: [MCP_LISTS, MCP_CALLS, MCP_CALLS2],
    tools: ["orders_order_status", "send_email"],
  });
  if (!kit.ok) throw new Error("the orders toolkit was refused");
  return server;
}

/** Median of `n` timings of `f`, in ms. */
async function medianMs(n: number, f: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(n / 2)] ?? 0;
}

/**
 * MCP: the per-round listing (an agent granted the tool, whose model only replies, beside the helpdesk's same mail),
 * a call (one call, then two, in the reply's round: the difference is one call, the rounds the same) and the round a
 * first call adds (its result goes back to the model: one call less that).
 */
async function mcpSection(server: HostileServer, plain: Sample[]): Promise<void> {
  const run = async (to: string, i: number) => {
    const requests = server.paths.length;
    const calls = server.calls.length;
    const s = await accepted(i, { to });
    return { s, requests: server.paths.length - requests, calls: server.calls.length - calls };
  };
  type Run = Awaited<ReturnType<typeof run>>;
  // Warm-up: the first connection pays the MCP client's module loading, as a cold Lambda would.
  for (const [k, to] of [MCP_LISTS, MCP_CALLS, MCP_CALLS2].entries()) await run(to, 400 + k);
  const groups: [Run[], Run[], Run[]] = [[], [], []];
  for (let k = 0; k < MCP_RUNS; k++)
    for (const [g, to] of [MCP_LISTS, MCP_CALLS, MCP_CALLS2].entries())
      groups[g as 0 | 1 | 2].push(await run(to, 410 + 10 * g + k));
  const [lists, ones, twos] = groups;
  const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const made = groups.map((g) => meanOf(g.map((r) => r.calls)));
  if (made[0] !== 0 || made[1] !== 1 || made[2] !== 2)
    throw new Error(`MCP: expected 0, 1 and 2 tool calls per run, saw ${made.join(", ")}`);
  // agent-step's own calls (the events it emits are the webhooks section's: the endpoint is still registered).
  const step = (s: Sample) =>
    s.calls.filter((c) => c.issuer === "agent-step" && !emitterHookCalls(s).includes(c));
  const ops = (rs: readonly Run[]) => opsOf(rs.map((r) => step(r.s)));
  const diff = (a: Map<string, number>, b: Map<string, number>) =>
    new Map([...new Set([...a.keys(), ...b.keys()])].map((k) => [k, (b.get(k) ?? 0) - (a.get(k) ?? 0)]));
  const usd = (rs: readonly Run[]) => meanOf(rs.map((r) => priceCalls(step(r.s)).usd));
  const rounds = (rs: readonly Run[]) => meanOf(rs.map((r) => r.s.model.length));
  const requests = (rs: readonly Run[]) => meanOf(rs.map((r) => r.requests));
  const stepMs = (rs: readonly Run[]) =>
    meanOf(rs.map((r) => r.s.invocations.filter((i) => i.fn === "agentStep").reduce((a, i) => a + i.ms, 0)));
  const plainUsd = meanOf(plain.map((s) => priceCalls(step(s)).usd));
  const listRequests = requests(lists) / rounds(lists);
  const callRequests = requests(twos) - requests(ones);
  // The same work outside the pipeline, timed alone: what agent-step spends per round listing and per call.
  const item = mcpServerItem.parse({ id: "orders", transport: "http", url: server.url });
  const listMs = await medianMs(20, async () => {
    const session = await loopback(item);
    await session.listTools();
    await session.close();
  });
  const callMs = await medianMs(20, async () => {
    const session = await loopback(item);
    await session.listTools();
    await session.callTool("order_status", { orderId: "1042" }, {});
    await session.close();
  });
  const gb = MEMORY_MB.agentStep / 1024;
  const per1000 = (usdEach: number) => `$${(usdEach * 1000).toFixed(4)}`;
  const lambdaUsd = (ms: number) => gbSecondsOf(ms, MEMORY_MB.agentStep) * PRICES.lambda.perGbSecondArm;
  console.log(
    `\nMCP: one server (Streamable HTTP on 127.0.0.1, no auth), one tool (a read) granted by a toolkit; ${MCP_RUNS} runs of each shape after one warm-up`,
  );
  console.log(
    `  model rounds per run: ${rounds(lists).toFixed(0)} with no call, ${rounds(ones).toFixed(0)} with one call, ${rounds(twos).toFixed(0)} with two (the calls and the reply in round 1; the results go back to the model)`,
  );
  console.log(
    `  per round, listing (a toolkit grants MCP tools): ${listRequests.toFixed(0)} HTTP requests to the server (connect + tools/list + close)`,
  );
  console.log(
    `    agent-step's AWS calls beside the same mail to an agent without MCP: ${showOps(diff(opsOf(plain.map(step)), ops(lists)))}; ${per1000(usd(lists) - plainUsd)} per 1,000 rounds`,
  );
  console.log(
    `    its time, measured alone (median of 20, loopback, no network latency): ${listMs.toFixed(1)} ms = ${gbSecondsOf(listMs, MEMORY_MB.agentStep).toFixed(4)} GB-s at ${MEMORY_MB.agentStep} MB = ${per1000(lambdaUsd(listMs))} per 1,000 rounds`,
  );
  console.log(
    `  per call (one more call of orders_order_status in the same round): ${callRequests.toFixed(0)} HTTP requests (it lists again, then tools/call)`,
  );
  console.log(
    `    extra AWS calls: ${showOps(diff(ops(ones), ops(twos)))}; ${per1000(usd(twos) - usd(ones))} per 1,000 calls`,
  );
  console.log(
    `    its time, measured alone (connect + tools/list + tools/call + close, median of 20, loopback): ${callMs.toFixed(1)} ms = ${gbSecondsOf(callMs, MEMORY_MB.agentStep).toFixed(4)} GB-s = ${per1000(lambdaUsd(callMs))} per 1,000 calls`,
  );
  console.log(
    `  the round a run's first call adds (its result goes back to the model; the model's own cost not included): ${showOps(diff(diff(ops(ones), ops(twos)), diff(ops(lists), ops(ones))))}; ${per1000(usd(ones) - usd(lists) - (usd(twos) - usd(ones)))} per 1,000 runs, with its listing`,
  );
  console.log(
    `    agent-step per run in the pipeline: ${stepMs(lists).toFixed(0)} ms with no call, ${stepMs(ones).toFixed(0)} ms with one, ${stepMs(twos).toFixed(0)} ms with two (noisy: a shared box, ${MCP_RUNS} runs)`,
  );
  const per100 = (n: number) => n * 0.1 * gb;
  console.log(
    `  server latency: agent-step waits out every HTTP request, so GB-s = requests × latency (s) × ${MEMORY_MB.agentStep} MB / 1024; per 100 ms of latency: ` +
      `a call ${per100(callRequests).toFixed(2)} GB-s (${per1000(per100(callRequests) * PRICES.lambda.perGbSecondArm)} per 1,000 calls), ` +
      `a round's listing ${per100(listRequests).toFixed(2)} GB-s per server (${per1000(per100(listRequests) * PRICES.lambda.perGbSecondArm)} per 1,000 rounds)`,
  );
}

try {
  await accepted(0); // warm-up: first invocations pay module loading, as a cold Lambda would
  const samples: Sample[] = [];
  for (let i = 1; i <= MAILS; i++) samples.push(await accepted(i));
  const refusedSamples = [await refused(), await refused()];
  console.log(
    `prices: ${PRICES.region}, checked ${PRICES.checked} (bench/aws-prices.ts); ${MAILS} accepted mails measured after one warm-up`,
  );
  print("one accepted mail, one reply", mean(samples.map(bill)), samples);
  if (process.env.COST_DETAIL)
    for (const c of samples[0]?.calls ?? []) if (FN_OF[c.issuer]) console.log(describeCall(c));
  print("one refused mail (unsigned: dkim-none, no notice)", mean(refusedSamples.map(bill)), refusedSamples);
  // The model's side: three shapes of answered mail, each priced per catalog model.
  const thread = await fifthOfThread();
  const long = await accepted(200, { body: longBody() });
  print("the fifth message of a thread, one reply", mean([thread].map(bill)), [thread]);
  print("a 64,000-character mail, one reply", mean([long].map(bill)), [long]);
  const scenarios: ModelScenario[] = [];
  for (const [name, s] of [
    ["a one-line question", samples[0]],
    ["the fifth message of a thread", thread],
    ["a 64,000-character mail", long],
  ] as const) {
    if (!s) continue;
    scenarios.push({
      name,
      calls: s.model,
      transcriptTail: await transcriptTail(s),
      awsUsd: bill(s).reduce((a, l) => a + l.usd, 0),
    });
  }
  const models = figures(
    scenarios,
    exampleCatalog(join(import.meta.dirname, "..", "postern.config.example.json")),
  );
  printModelTable(
    models,
    "@anthropic-ai/tokenizer (Anthropic's published tokenizer; close, not exact, for Sonnet 4.6)",
  );
  let archived: { run: number; thread: number } | null = null;
  if (ARCHIVE > 0) {
    const empty = samples.reduce((a, s) => a + readUnits(s, "agent-step"), 0) / samples.length;
    const emptyThread = samples.reduce((a, s) => a + threadReadUnits(s), 0) / samples.length;
    await fillArchive(ARCHIVE);
    const full = await accepted(MAILS + 1);
    archived = { run: readUnits(full, "agent-step"), thread: threadReadUnits(full) };
    console.log(
      `\nagent-step read units per run: ${empty.toFixed(1)} with ${MAILS + 1} archived messages, ` +
        `${archived.run.toFixed(1)} with ${ARCHIVE} more in other threads (ratio ${(archived.run / empty).toFixed(2)}; ` +
        "COST_ARCHIVE=N sets the archive); of which the thread's history: " +
        `${emptyThread.toFixed(1)} → ${archived.thread.toFixed(1)}`,
    );
  }
  printTargets(targetRows(samples, archived));
  printTargets(modelCostRows(samples, models), "model cost", "before (f50c070)");
  printMonth(samples, await tick());
  // The integrations, after everything above (registered only now, so nothing above changes).
  let mcpServer: HostileServer | null = null;
  try {
    const hooked = await webhooksSection(samples, async () => {
      mcpServer = await mcpSetUp();
    });
    if (mcpServer) await mcpSection(mcpServer, hooked);
  } finally {
    await (mcpServer as HostileServer | null)?.close();
  }
} finally {
  await stack.stop();
}
