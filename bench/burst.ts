/**
 * `npm run bench:burst`: a burst of signed mail through the whole local stack, as `npm start` runs it (persisted
 * emulator state, the real handlers, Lambda's batch and long-poll settings), with a scripted model that replies
 * once and stops. Locally the stack is CPU-bound, so this is where fewer calls per mail show up as speed
 *.
 *
 * BURST_MAILS mails (default 100) from as many senders are composed and DKIM-signed before the clock starts,
 * then sent over BURST_CONNECTIONS SMTP connections (default 8). It prints the wall time from the first send to
 * the last reply, mails/s, each mail's latency (its SMTP 250 to its reply's .eml in the outbox, matched by
 * In-Reply-To), lost mails (accepted, no reply within BURST_TIMEOUT_S of the last progress), duplicated replies
 * (counted once the queues are empty), and the process's CPU time per mail (the emulators run in this process
 * too). It exits non-zero if a mail was refused, lost or answered twice. BURST_PERSIST=0 keeps state in memory.
 *
 * The mails are the same every run (senders, subjects, bodies, Message-IDs, Date and DKIM t=); only the dev
 * DKIM key, made fresh in each temp dir, changes the signature bytes.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import { consoleFunctionLogger } from "../cli/local/console-logger.ts";
import { ensureDevKey } from "../cli/local/dev-keys.ts";
import { signWithDevKey } from "../cli/local/dev-send.ts";
import { pipelineHandlers } from "../cli/local/pipeline.ts";
import { startLocalStack } from "../cli/local/stack.ts";
import { makeStores } from "../shared/store/stores.ts";

const MAILS = Number(process.env.BURST_MAILS ?? 100);
const CONNECTIONS = Number(process.env.BURST_CONNECTIONS ?? 8);
const TIMEOUT_S = Number(process.env.BURST_TIMEOUT_S ?? 60);
const PERSIST = process.env.BURST_PERSIST !== "0";
const AGENT = "helpdesk@agents.example.net";
const SENDER_DOMAIN = "customer.example";
/** Fixed, and in the past: a DKIM t= in the future is refused (dkim-future-timestamp). */
const SENT_AT = new Date("2026-11-30T12:00:00Z");

const dir = mkdtempSync(join(tmpdir(), "postern-burst-"));
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
    models: [{ id: "demo", provider: "scripted", script: "script.json", egress: "internal" }],
    // The default caps (50 runs per sender, 500 per agent a day) would refuse a large burst.
    budgets: { runsPerSenderPerDay: 10_000, runsPerAgentPerDay: 10_000 },
  }),
);

// The functions' log lines are formatted as `npm start` formats them, but not written: a terminal's speed is not
// the pipeline's. Warnings and errors are kept to explain a lost mail.
let logLines = 0;
const problems: string[] = [];
const logger = (service: string) =>
  consoleFunctionLogger(service, (line) => {
    logLines++;
    if (/^\[[^\]]+\] (WARN|ERROR) /.test(line) && problems.length < 20) problems.push(line.slice(0, 300));
  });

const stack = await startLocalStack({
  dir,
  configPath: join(dir, "postern.config.json"),
  persist: PERSIST,
  smtpPort: 0,
  handlers: (ctx) => pipelineHandlers(ctx, logger),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exitCode = await (async () => {
  try {
    return await run();
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
})();
// Lingering sockets (SDK keep-alive, the SMTP pool) must not keep a finished bench alive.
process.exit(exitCode);

async function run(): Promise<number> {
  const stores = makeStores(stack.clients, stack.resources, { info() {}, warn() {}, error() {} } as never);
  await stores.admin.putAgent({ address: AGENT, name: "Help Desk", model: "demo" });
  const keyed = ensureDevKey(dir, stack.zoneFile, SENDER_DOMAIN);
  if (!keyed.ok) throw new Error(`dev key: ${keyed.reason}`);

  // Composed and signed before the clock starts: the burst measures the stack, not the sender's RSA signing.
  const mails = await Promise.all(
    Array.from({ length: MAILS }, async (_, i) => {
      const from = `sender${i}@${SENDER_DOMAIN}`;
      const messageId = `<burst-${i}@${SENDER_DOMAIN}>`;
      const unsigned = await new MailComposer({
        from,
        to: [AGENT],
        subject: `Order ${i}`,
        text: `Where is my order? This is mail ${i} of the burst.`,
        date: SENT_AT,
        messageId,
      })
        .compile()
        .build();
      return { from, messageId, raw: await signWithDevKey(unsigned, keyed.key, SENT_AT) };
    }),
  );
  const byMessageId = new Map(mails.map((m, i) => [m.messageId, i]));

  const replies = watchOutbox(stack.outboxDir);
  const acceptedAt: (number | undefined)[] = new Array(MAILS).fill(undefined);
  const refused: string[] = [];

  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let next = 0;
  // One pooled transport per connection, each kept open for the whole burst, as a relay would.
  const transports = Array.from({ length: CONNECTIONS }, () =>
    nodemailer.createTransport({
      host: stack.smtp.host,
      port: stack.smtp.port,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 1,
      maxMessages: Number.POSITIVE_INFINITY,
    }),
  );
  const sending = Promise.all(
    transports.map(async (transport) => {
      while (next < MAILS) {
        const i = next++;
        const mail = mails[i];
        if (!mail) break;
        try {
          await transport.sendMail({ envelope: { from: mail.from, to: [AGENT] }, raw: mail.raw });
          acceptedAt[i] = performance.now();
        } catch (err) {
          refused.push(`mail ${i}: ${String(err).slice(0, 200)}`);
        }
      }
      transport.close();
    }),
  );

  // Done when every accepted mail has a reply; lost when no new reply came for TIMEOUT_S.
  let answered = 0;
  let lastProgress = performance.now();
  let sendsDone = false;
  void sending.then(() => {
    sendsDone = true;
  });
  let cpuEnd = process.cpuUsage(cpu0);
  for (;;) {
    await sleep(50);
    replies.sweep();
    const now = answeredCount();
    if (now > answered) {
      answered = now;
      lastProgress = performance.now();
    }
    const accepted = acceptedAt.filter((a) => a !== undefined).length;
    if (sendsDone && answered >= accepted) {
      cpuEnd = process.cpuUsage(cpu0);
      break;
    }
    if (performance.now() - lastProgress > TIMEOUT_S * 1000) {
      cpuEnd = process.cpuUsage(cpu0);
      break;
    }
  }
  await sending;
  const sendsEnd = Math.max(...acceptedAt.filter((a): a is number => a !== undefined), t0);

  function answeredCount(): number {
    let n = 0;
    for (const [id, at] of replies.byInReplyTo) {
      const i = byMessageId.get(id);
      if (i !== undefined && acceptedAt[i] !== undefined && at.length > 0) n++;
    }
    return n;
  }

  // A second reply would come from a redelivered message: count duplicates only once every queue is empty.
  const settled = await queuesEmpty(TIMEOUT_S * 1000);
  await sleep(1000);
  replies.sweep();
  replies.close();

  const latencies: number[] = [];
  let lost = 0;
  let duplicates = 0;
  let lastReply = t0;
  mails.forEach((m, i) => {
    const accepted = acceptedAt[i];
    if (accepted === undefined) return;
    const at = replies.byInReplyTo.get(m.messageId) ?? [];
    const first = at[0];
    if (first === undefined) {
      lost++;
      return;
    }
    if (at.length > 1) duplicates++;
    latencies.push(first - accepted);
    lastReply = Math.max(lastReply, first);
  });
  // The DLQs sit beside their queues (`<name>-dlq`, cli/local/emulators.ts); a mail there failed for good.
  const deadLettered = await queued(Object.values(stack.resources.queues).map((u) => `${u}-dlq`));
  const unmatched = [...replies.byInReplyTo].filter(([id]) => !byMessageId.has(id)).length;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.max(0, Math.ceil(p * latencies.length) - 1)] ?? Number.NaN;
  const wall = (lastReply - t0) / 1000;
  const acceptedCount = acceptedAt.filter((a) => a !== undefined).length;
  const cpuMs = (cpuEnd.user + cpuEnd.system) / 1000;
  const result = {
    mails: MAILS,
    connections: CONNECTIONS,
    persist: PERSIST,
    accepted: acceptedCount,
    refused: refused.length,
    sendSeconds: round((sendsEnd - t0) / 1000, 2),
    wallSeconds: round(wall, 2),
    mailsPerSecond: round((acceptedCount - lost) / wall, 2),
    p50: round(pct(0.5) / 1000, 2),
    p95: round(pct(0.95) / 1000, 2),
    max: round((latencies.at(-1) ?? Number.NaN) / 1000, 2),
    lost,
    duplicates,
    unmatchedReplies: unmatched,
    queuesSettled: settled,
    deadLettered,
    cpuMsPerMail: round(cpuMs / Math.max(1, acceptedCount), 1),
    cpuUtilisation: round(cpuMs / 1000 / wall, 2),
    logLinesPerMail: round(logLines / Math.max(1, acceptedCount), 1),
  };
  console.log(
    `burst: ${MAILS} mails over ${CONNECTIONS} SMTP connections (state ${PERSIST ? "persisted" : "in memory"})`,
  );
  console.log(`  accepted ${acceptedCount}, refused ${refused.length}; all sent in ${result.sendSeconds} s`);
  console.log(`  end to end: ${result.wallSeconds} s, ${result.mailsPerSecond} mails/s`);
  console.log(
    `  latency (250 → reply in the outbox): p50 ${result.p50} s, p95 ${result.p95} s, max ${result.max} s`,
  );
  console.log(
    `  lost ${lost}, duplicated ${duplicates}, replies to no burst mail ${unmatched}, dead-lettered ${deadLettered}${settled ? "" : " (queues never emptied)"}`,
  );
  console.log(
    `  CPU ${result.cpuMsPerMail} ms per mail (this process: emulators, intake, handlers; ${result.cpuUtilisation} cores busy), ${result.logLinesPerMail} log lines per mail`,
  );
  for (const r of refused.slice(0, 5)) console.log(`  refused: ${r}`);
  if (lost > 0 || duplicates > 0) for (const p of problems) console.log(`  log: ${p}`);
  console.log(`BURST_RESULT ${JSON.stringify(result)}`);
  return lost > 0 || duplicates > 0 || refused.length > 0 ? 1 : 0;
}

/**
 * Replies by the Message-ID they answer, each with the moment its .eml first appeared. fs.watch gives that moment
 * without polling; a periodic directory listing catches anything a watch event missed. A file whose header block
 * is not complete yet (an SES capture that writes in place) is read again on the next sweep.
 */
function watchOutbox(outbox: string) {
  const firstSeen = new Map<string, number>();
  const pending = new Set<string>();
  const byInReplyTo = new Map<string, number[]>();
  const see = (name: string | null) => {
    if (!name?.endsWith(".eml") || firstSeen.has(name)) return;
    firstSeen.set(name, performance.now());
    pending.add(name);
    read(name);
  };
  const read = (name: string) => {
    let text: string;
    try {
      text = readFileSync(join(outbox, name), "latin1");
    } catch {
      return;
    }
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) return;
    pending.delete(name);
    const inReplyTo = /^in-reply-to:\s*(<[^>\r\n]*>)/im.exec(text.slice(0, end))?.[1] ?? "(none)";
    const at = firstSeen.get(name) ?? performance.now();
    const list = byInReplyTo.get(inReplyTo) ?? [];
    list.push(at);
    list.sort((a, b) => a - b);
    byInReplyTo.set(inReplyTo, list);
  };
  const watcher = watch(outbox, (_event, name) => see(name));
  let lastListing = 0;
  return {
    byInReplyTo,
    sweep() {
      for (const name of [...pending]) read(name);
      if (performance.now() - lastListing > 1000 && existsSync(outbox)) {
        lastListing = performance.now();
        for (const name of readdirSync(outbox)) see(name);
      }
    },
    close: () => watcher.close(),
  };
}

/** Messages in the given queues, visible or in flight. */
async function queued(urls: readonly string[]): Promise<number> {
  let total = 0;
  for (const QueueUrl of urls) {
    const a = await stack.clients.sqs
      .send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        }),
      )
      .catch(() => undefined);
    total +=
      Number(a?.Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(a?.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  }
  return total;
}

/** Every pipeline queue empty, in flight included; false if they were not within `ms`. */
async function queuesEmpty(ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if ((await queued(Object.values(stack.resources.queues))) === 0) return true;
    await sleep(250);
  }
  return false;
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}
