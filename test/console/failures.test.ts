// G19: every failure ends somewhere a person looks. Each failure class is driven through the whole local
// pipeline (SMTP → verify → agent-step → outbound → the SES capture) and must end in its state (run or send) with
// its reason code and SES's or the provider's message, a trace event on the run, the log line its CloudWatch
// metric counts (test/infra/failure-metrics.test.ts proves the filter matches it), a row in the console and a row
// in `postern runs`.

import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import PostalMime from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runsFailures, runsList, runsShow } from "../../cli/commands/runs-actions.ts";
import { devSend } from "../../cli/local/dev-send.ts";
import { pipelineHandlers } from "../../cli/local/pipeline.ts";
import { UNVERIFIED_DOMAIN } from "../../cli/local/ses-capture.ts";
import { type LocalStack, startLocalStack } from "../../cli/local/stack.ts";
import { type LocalConsole, startLocalConsole } from "../../console/server.ts";
import { FAILURE_EVENT, FAILURE_LOG, type FailureClass } from "../../shared/ports/failures.ts";
import type { RunRecord } from "../../shared/ports/runs.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { builtinTools } from "../../shared/tool-framework/builtin/index.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import { demoOrderBackend, orderTools } from "../../tools/orders.ts";
import { type RecordingLogger, recordingLogger } from "../fakes/recording-logger.ts";
import { waitFor } from "../helpers/pipeline-stack.ts";
import { ConsoleClient } from "./harness.ts";

const DOMAIN = "agents.example.net";
const HELPDESK = `helpdesk@${DOMAIN}`; // answers every mail
const LOST = `lost@${DOMAIN}`; // its model is not in the catalog
const OFFLINE = `offline@${DOMAIN}`; // its model's server does not answer
const SHOP = `shop@${DOMAIN}`; // proposes a refund whose approver cannot be written to
const UNDELIVERABLE_APPROVER = "operator@localhost";
const DESK = `desk@${DOMAIN}`; // proposes a refund of an order the sender does not own: it fails when approved
const OPERATOR = "admin@operators.example"; // the console's operator, the desk's approver

let stack: LocalStack;
let dir: string;
let console_: LocalConsole;
let stores: Stores;
let client: ConsoleClient;
const logs = new Map<string, RecordingLogger>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-failures-"));
  const files: Record<string, unknown> = {
    "postern.config.json": {
      domains: [DOMAIN],
      models: [
        { id: "reply", provider: "scripted", script: "reply.json", egress: "internal" },
        { id: "refund", provider: "scripted", script: "refund.json", egress: "internal" },
        { id: "desk", provider: "scripted", script: "desk.json", egress: "internal" },
        // Port 9 (discard) on loopback: nothing listens, every attempt is refused (model-network, retryable).
        {
          id: "offline",
          provider: "openai-compatible",
          baseUrl: "http://127.0.0.1:9/v1",
          model: "x",
          egress: "internal",
        },
      ],
    },
    "reply.json": {
      turns: [
        { toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Thanks, we got your mail." } }] },
        { text: "done" },
      ],
    },
    // The continuation after the approval ends quietly: what is under test is the plan's own outcome.
    "desk.json": {
      turns: [
        {
          toolCalls: [
            { name: "issue_refund", input: { order: "A-1002", amountCents: 2000, reason: "arrived broken" } },
          ],
        },
        { text: "proposed" },
        { text: "done" },
      ],
    },
    "refund.json": {
      turns: [
        {
          toolCalls: [
            { name: "issue_refund", input: { order: "A-1002", amountCents: 2000, reason: "arrived broken" } },
          ],
        },
        { text: "proposed" },
      ],
    },
  };
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), JSON.stringify(content));
  const registry = new ToolRegistry([...builtinTools(), ...orderTools(demoOrderBackend())]);
  stack = await startLocalStack({
    dir,
    configPath: join(dir, "postern.config.json"),
    smtpPort: 0,
    waitTimeSeconds: 1,
    // Short redelivery and two receives: the unreachable model's round reaches its last delivery in seconds.
    visibilityTimeout: 1,
    maxReceiveCount: 2,
    handlers: (ctx) =>
      pipelineHandlers(
        ctx,
        (service) => {
          const l = recordingLogger();
          logs.set(service, l);
          return l;
        },
        registry,
      ),
  });
  stores = makeStores(stack.clients, stack.resources, recordingLogger());
  await stores.admin.putAgent({ address: HELPDESK, name: "Helpdesk", model: "reply" });
  await stores.admin.putAgent({ address: LOST, name: "Lost", model: "not-in-catalog" });
  await stores.admin.putAgent({ address: OFFLINE, name: "Offline", model: "offline" });
  await stores.admin.putAgent({ address: SHOP, name: "Shop", model: "refund" });
  await stores.admin.putToolkit({ id: "refunds", tools: ["issue_refund"], agents: [SHOP] });
  await stores.admin.putApprover({ toolkit: "refunds", address: UNDELIVERABLE_APPROVER });
  await stores.admin.putAgent({ address: DESK, name: "Desk", model: "desk" });
  await stores.admin.putToolkit({ id: "desk-refunds", tools: ["issue_refund"], agents: [DESK] });
  await stores.admin.putApprover({ toolkit: "desk-refunds", address: OPERATOR });
  console_ = await startLocalConsole({
    clients: stack.clients,
    resources: stack.resources,
    config: stack.config.config,
    logger: recordingLogger(),
    port: 0,
    operatorEmail: OPERATOR,
    registry,
  });
  client = new ConsoleClient(console_.url);
  await client.signIn(console_.link());
}, 60_000);

afterAll(async () => {
  await console_?.stop();
  await stack?.stop();
});

async function mail(from: string, to: string, subject: string): Promise<void> {
  const sent = await devSend({
    dir,
    zoneFile: stack.zoneFile,
    from,
    to: [to],
    subject,
    body: "Hello, please help.",
    port: stack.smtp.port,
  });
  if (!sent.ok) throw new Error(sent.reason);
}

/** The newest run of `agent` whose failure mark is of `cls` (set once the failure is reported). */
function failedRun(
  agent: string,
  cls: FailureClass,
  not: ReadonlySet<string> = new Set(),
): Promise<RunRecord> {
  return waitFor(`a ${cls} run of ${agent}`, async () =>
    (await stores.runs.listRecent(50)).find(
      (r) => r.agent === agent && r.failure?.class === cls && !not.has(r.runId),
    ),
  );
}

async function failureEvents(runId: string): Promise<Record<string, unknown>[]> {
  return (await stores.runEvents.list(runId)).filter((e) => e.type === FAILURE_EVENT).map((e) => e.data);
}

/** The failure lines a function wrote: what its CloudWatch metric filter counts. */
function failureLines(service: string, cls: FailureClass): Record<string, unknown>[] {
  return (logs.get(service)?.lines ?? [])
    .filter((l) => l.message === FAILURE_LOG && l.extra?.failureClass === cls)
    .map((l) => l.extra ?? {});
}

function cli(): { io: { out(t: string): void; err(t: string): void }; text(): string } {
  let out = "";
  return {
    io: {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        out += t;
      },
    },
    text: () => out,
  };
}

async function cliText(
  command: (flags: { dataDir: string }, io: ReturnType<typeof cli>["io"]) => Promise<number>,
): Promise<string> {
  const c = cli();
  expect(await command({ dataDir: join(dir, "data") }, c.io)).toBe(0);
  return c.text();
}

async function outboxTo(
  address: string,
): Promise<{ subject: string; text: string; auto: string | undefined }[]> {
  const files = existsSync(stack.outboxDir)
    ? readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml"))
    : [];
  const mails = await Promise.all(files.map((f) => PostalMime.parse(readFileSync(join(stack.outboxDir, f)))));
  return mails
    .filter((m) => m.to?.some((a) => a.address === address))
    .map((m) => ({
      subject: m.subject ?? "",
      text: m.text ?? "",
      auto: m.headers.find((h) => h.key === "auto-submitted")?.value,
    }));
}

const page = async (path: string): Promise<string> => (await client.get(path)).text();

describe("G19: every failure ends somewhere a person looks", () => {
  it("a reply SES refuses for good: send state, trace, metric line, console rows, CLI rows", async () => {
    const sender = `carol@${UNVERIFIED_DOMAIN}`;
    await mail(sender, HELPDESK, "Opening hours");
    const run = await failedRun(HELPDESK, "send-failed");
    expect(run.state).toBe("completed");
    expect(run.failure?.reason).toBe("ses-rejected:MessageRejected");

    const [event] = await failureEvents(run.runId);
    expect(event).toMatchObject({ class: "send-failed", reason: "ses-rejected:MessageRejected" });
    expect(event?.detail).toContain(`Email address is not verified.`);
    expect(event?.detail).toContain(sender);
    // The send's own state keeps the code and SES's message.
    const requestId = String(event?.requestId);
    const send = await stores.state.get(`send#${requestId}`, "send");
    expect(send).toMatchObject({ state: "failed", reason: "ses-rejected:MessageRejected" });
    expect(String(send?.detail)).toContain("Email address is not verified.");

    expect(failureLines("outbound", "send-failed")).toEqual([
      expect.objectContaining({ reason: "ses-rejected:MessageRejected", runId: run.runId, requestId }),
    ]);

    const runPage = await page(`/runs/${run.runId}`);
    expect(runPage).toContain(
      "FAILURE: mail NOT sent (ses-rejected:MessageRejected: Email address is not verified.",
    );
    expect(runPage).toContain(`<code>${requestId}</code>: failed (<code>ses-rejected:MessageRejected</code>`);
    const agentPage = await page(`/agents/${encodeURIComponent(HELPDESK)}`);
    expect(agentPage).toContain("send-failed: <code>ses-rejected:MessageRejected</code>");
    const failures = await page("/failures");
    expect(failures).toContain(`<a href="/runs/${run.runId}">`);

    const list = await cliText(runsList);
    expect(list.split("\n").find((l) => l.startsWith(run.runId))).toContain(
      "send-failed: ses-rejected:MessageRejected",
    );
    expect(await cliText((f, io) => runsShow(run.runId, f, io))).toContain(
      "FAILURE send-failed: ses-rejected:MessageRejected",
    );
    expect(await cliText(runsFailures)).toMatch(/send-failed\s+ses-rejected:MessageRejected\s+helpdesk@/);
    // Nothing reached the outbox for the refused address (the capture refused it as SES would).
    expect(await outboxTo(sender)).toEqual([]);
  });

  it("a model not in the catalog: the run fails, the operator is alerted, the sender told once a day", async () => {
    const sender = "erin@customer.example";
    await mail(sender, LOST, "First try");
    const first = await failedRun(LOST, "run-failed");
    expect(first).toMatchObject({ state: "failed", finishReason: "model-unknown" });
    expect(await failureEvents(first.runId)).toEqual([
      expect.objectContaining({ class: "run-failed", reason: "model-unknown", senderNotice: "sent" }),
    ]);
    const notice = await waitFor("the notice to the sender", async () => (await outboxTo(sender))[0]);
    expect(notice.subject).toBe("Your message could not be answered");
    expect(notice.text).toContain("the operator has been told");
    expect(notice.auto).toBe("auto-generated");

    // A second failed run the same day: reported again, but the sender is not told twice.
    await mail(sender, LOST, "Second try");
    const second = await failedRun(LOST, "run-failed", new Set([first.runId]));
    expect(await failureEvents(second.runId)).toEqual([
      expect.objectContaining({
        class: "run-failed",
        reason: "model-unknown",
        senderNotice: "already-today",
      }),
    ]);
    expect(failureLines("agent-step", "run-failed").filter((l) => l.agent === LOST)).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await outboxTo(sender)).toHaveLength(1);

    expect(await page(`/runs/${second.runId}`)).toContain(
      "FAILURE: run failed, the sender got no answer (model-unknown); the sender was already told today",
    );
    expect(await cliText(runsFailures)).toMatch(
      /run-failed\s+model-unknown\s+lost@\S+\s+\S+\s+already-today/,
    );
  });

  it("an unreachable model: the last try says so, the run fails with the provider's message", async () => {
    await mail("frank@customer.example", OFFLINE, "Anyone?");
    const run = await failedRun(OFFLINE, "run-failed");
    expect(run).toMatchObject({ state: "failed", finishReason: "model-network" });
    const events = await stores.runEvents.list(run.runId);
    const tries = events.filter((e) => e.type === "model-failure").map((e) => e.data);
    // Two deliveries (maxReceiveCount 2): the first will retry, the last says it is the last.
    expect(tries).toEqual([
      expect.objectContaining({ reason: "model-network", retryable: true }),
      expect.objectContaining({ reason: "model-network", retryable: false, lastTry: true }),
    ]);
    const [event] = await failureEvents(run.runId);
    expect(event).toMatchObject({ class: "run-failed", reason: "model-network", senderNotice: "sent" });
    expect(String(event?.detail)).not.toBe("");
    const tree = await cliText((f, io) => runsShow(run.runId, f, io));
    expect(tree).toContain("model failure model-network (will retry)");
    expect(tree).toContain("model failure model-network (last try: the run fails)");
    expect(tree).toContain("FAILURE run-failed: model-network");
  });

  it("a confirm card its approver cannot be written to: not 'sent', but a failure with its reason", async () => {
    await mail("gina@customer.example", SHOP, "Refund please");
    const run = await failedRun(SHOP, "card-undelivered");
    expect(run.state).toBe("completed");
    const [event] = await failureEvents(run.runId);
    expect(event).toMatchObject({
      class: "card-undelivered",
      reason: "recipient-invalid",
      requestId: `card-${run.runId}`,
    });
    expect(failureLines("outbound", "card-undelivered")).toEqual([
      expect.objectContaining({ reason: "recipient-invalid", runId: run.runId }),
    ]);
    const runPage = await page(`/runs/${run.runId}`);
    expect(runPage).toContain("plan: confirm card queued for 1 approver(s)");
    expect(runPage).not.toContain("confirm card sent");
    expect(runPage).toContain("FAILURE: confirm card NOT sent (recipient-invalid");
    // The card's own line says why, and no longer "failed, 0 recipient(s)".
    expect(runPage).toContain(`<code>card-${run.runId}</code>: failed (<code>recipient-invalid</code>`);
    expect(runPage).not.toContain("0 recipient(s)");
    expect((await cliText(runsList)).split("\n").find((l) => l.startsWith(run.runId))).toContain(
      "card-undelivered: recipient-invalid",
    );
  });

  it("an approved refund whose tool fails: failed (its reason), not applied, everywhere a person looks", async () => {
    // A-1002 is carol's order: asked for by dave, the refund tool answers order-not-found when it runs.
    await mail("dave@customer.example", DESK, "Refund please");
    const pending = await waitFor("the desk's pending plan", async () => {
      for (const r of await stores.runs.listRecent(50))
        if (r.agent === DESK && (await stores.state.get(`plan#${r.runId}`, "plan"))?.state === "pending")
          return r;
      return undefined;
    });
    const runId = pending.runId;
    const csrf = await client.csrf(`/plans/${runId}`);
    expect((await client.post(`/plans/${runId}/apply`, { _csrf: csrf, decision: "approve" })).status).toBe(
      303,
    );
    const run = await failedRun(DESK, "plan-failed");
    expect(run.runId).toBe(runId);
    expect(await stores.state.get(`plan#${runId}`, "plan")).toMatchObject({
      state: "failed",
      failedReason: "order-not-found",
      results: [{ number: 1, tool: "issue_refund", status: "failed", reason: "order-not-found" }],
    });
    expect(await failureEvents(runId)).toEqual([
      expect.objectContaining({ class: "plan-failed", reason: "order-not-found" }),
    ]);
    expect(failureLines("agent-step", "plan-failed")).toEqual([
      expect.objectContaining({ reason: "order-not-found", runId }),
    ]);
    const planPage = await page(`/plans/${runId}`);
    expect(planPage).toContain("failed (order-not-found)</strong> by admin@operators.example");
    expect(planPage).toContain("<strong>dave@customer.example</strong>");
    expect(planPage).not.toMatch(/<strong[^>]*>applied/);
    expect(await page(`/runs/${runId}`)).toContain(
      "FAILURE: approved plan did NOT run as approved (order-not-found",
    );
    expect(await page("/failures")).toContain(`<a href="/runs/${runId}">`);
    const show = await cliText((f, io) => runsShow(runId, f, io));
    expect(show).toContain("plan failed (order-not-found)  decided by admin@operators.example");
    expect(show).toContain("1. issue_refund  FAILED (order-not-found): no order A-1002 for this sender");
    expect(await cliText(runsFailures)).toMatch(/plan-failed\s+order-not-found\s+desk@/);
    // The approver is told what ran and what failed.
    const told = await waitFor("the approver's outcome mail", async () =>
      (await outboxTo(OPERATOR)).find((m) =>
        m.subject.startsWith("FAILED: not everything you approved was done"),
      ),
    );
    expect(told.text).toContain("result: FAILED (order-not-found)");
  });

  it("a notice that cannot be delivered: the failed run's notice to an address SES refuses", async () => {
    const sender = `hank@${UNVERIFIED_DOMAIN}`;
    await mail(sender, LOST, "Hello?");
    const run = await failedRun(LOST, "notice-undelivered");
    expect(run.failureCount).toBe(2);
    expect(await failureEvents(run.runId)).toEqual([
      expect.objectContaining({ class: "run-failed", reason: "model-unknown", senderNotice: "sent" }),
      expect.objectContaining({ class: "notice-undelivered", reason: "ses-rejected:MessageRejected" }),
    ]);
    expect(failureLines("outbound", "notice-undelivered")).toEqual([
      expect.objectContaining({ reason: "ses-rejected:MessageRejected", runId: run.runId }),
    ]);
    expect(await page("/failures")).toContain("notice-undelivered");
    expect(await cliText(runsFailures)).toMatch(/notice-undelivered\s+ses-rejected:MessageRejected/);
  });

  it("a refusal notice that cannot be delivered: no run, but a failure in the feed, the console and the CLI", async () => {
    const sender = `ivan@${UNVERIFIED_DOMAIN}`;
    await stores.admin.putAccessRule({ agent: HELPDESK, pattern: sender, effect: "deny" });
    await mail(sender, HELPDESK, "Let me in");
    const entry = await waitFor("the refusal notice's failure", async () =>
      (await stores.failures.listRecent({ now: new Date(), days: 1 })).find(
        (f) => f.class === "notice-undelivered" && f.runId === undefined,
      ),
    );
    expect(entry).toMatchObject({ agent: HELPDESK, reason: "ses-rejected:MessageRejected" });
    expect(entry.detail).toContain(sender);
    expect(failureLines("outbound", "notice-undelivered")).toContainEqual(
      expect.objectContaining({ requestId: entry.requestId, agent: HELPDESK }),
    );
    expect(await page("/failures")).toContain(`<code>${entry.requestId}</code>`);
    expect(await cliText(runsFailures)).toContain(String(entry.requestId));
  });
});
