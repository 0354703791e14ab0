import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import nodemailer from "nodemailer";
import PostalMime from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevKey } from "../../cli/local/dev-keys.ts";
import { devSend } from "../../cli/local/dev-send.ts";
import type { LocalStack } from "../../cli/local/stack.ts";
import { formatCode } from "../../shared/mail/confirm-reading.ts";
import { signMessage } from "../../shared/mail/dkim-sign.ts";
import { PlanStore } from "../../shared/store/plan-store.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { builtinTools } from "../../shared/tool-framework/builtin/index.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import { demoOrderBackend, orderTools } from "../../tools/orders.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { startPipelineStack, waitFor } from "../helpers/pipeline-stack.ts";

const AGENT = "shop@agents.example.net";
const CUSTOMER = "carol@customer.example";
const APPROVER = "boss@approvers.example";
const OTHER = "mallory@customer.example";
let stack: LocalStack;
let stores: Stores;
let plans: PlanStore;
let dir: string;
const backend = demoOrderBackend();

async function mails() {
  const files = readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml"));
  return Promise.all(files.map(async (f) => PostalMime.parse(readFileSync(join(stack.outboxDir, f)))));
}

async function send(from: string, body: string, headers: string[] = []) {
  const raw = Buffer.from(
    [
      `From: ${from}`,
      `To: ${AGENT}`,
      "Subject: Re: approval",
      `Message-ID: <${Math.random().toString(16).slice(2)}@x>`,
      ...headers,
      "",
      body,
      "",
    ].join("\r\n"),
  );
  const sent = await devSend({
    dir,
    zoneFile: stack.zoneFile,
    from,
    to: [AGENT],
    raw,
    port: stack.smtp.port,
  });
  if (!sent.ok) throw new Error(sent.reason);
}

/** The customer asks; the scripted model proposes a refund; the run ends and the card goes to the approver. */
async function proposeRefund(order: string): Promise<{ code: string; runId: string }> {
  const before = (await mails()).length;
  const sent = await devSend({
    dir,
    zoneFile: stack.zoneFile,
    from: CUSTOMER,
    to: [AGENT],
    subject: `Refund ${order}`,
    body: `Order ${order} arrived broken.`,
    port: stack.smtp.port,
  });
  if (!sent.ok) throw new Error(sent.reason);
  const card = await waitFor("the confirm card", async () => {
    const all = await mails();
    return all.length > before
      ? all.find((m) => m.subject?.startsWith("Approval needed") && !seenCards.has(m.messageId ?? ""))
      : undefined;
  });
  seenCards.add(card.messageId ?? "");
  const code = /^code: ([A-Z0-9]{4}) ([A-Z0-9]{4}) ([A-Z0-9]{2})$/m
    .exec(card.text ?? "")
    ?.slice(1)
    .join("");
  if (!code) throw new Error("no code on the card");
  const loc = await plans.runForCode(code);
  if (!loc) throw new Error("code not indexed");
  return { code, runId: loc.runId };
}
const seenCards = new Set<string>();

beforeAll(async () => {
  ({ stack, dir } = await startPipelineStack({
    config: {
      domains: ["agents.example.net"],
      models: [{ id: "demo", provider: "scripted", script: "script.json", egress: "internal" }],
    },
    // Turn 1 proposes, turn 2 stops; after the approval the continuation (2 assistant turns in) replies and stops.
    script: {
      turns: [
        {
          toolCalls: [
            { name: "issue_refund", input: { order: "A-1002", amountCents: 2000, reason: "arrived broken" } },
          ],
        },
        { text: "proposed" },
        {
          toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Your refund has been issued." } }],
        },
        { text: "done" },
      ],
    },
    registry: new ToolRegistry([...builtinTools(), ...orderTools(backend)]),
  }));
  stores = makeStores(stack.clients, stack.resources, recordingLogger());
  plans = new PlanStore({
    dynamo: stack.clients.dynamo,
    tables: stack.resources.tables,
    state: stores.state,
  });
  await stores.admin.putAgent({ address: AGENT, name: "Shop", model: "demo" });
  await stores.admin.putToolkit({ id: "refunds", tools: ["issue_refund"], agents: [AGENT] });
  await stores.admin.putApprover({ toolkit: "refunds", address: APPROVER });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe("propose → confirm → apply (G14), in the local stack", () => {
  it("a confirm tool never runs in the loop; its card goes to the approver with the exact arguments", async () => {
    const { runId } = await proposeRefund("A-1002");
    expect(backend.refunds.size).toBe(0);
    const plan = await plans.get(runId);
    expect(plan).toMatchObject({
      state: "pending",
      ops: [
        { tool: "issue_refund", input: { order: "A-1002", amountCents: 2000, reason: "arrived broken" } },
      ],
    });
    const card = (await mails()).find((m) => m.subject?.includes(formatCode(plan?.code ?? "-")));
    expect(card?.to?.map((a) => a.address)).toEqual([APPROVER]);
    expect(card?.text).toContain(
      'arguments: {"amountCents":2000,"order":"A-1002","reason":"arrived broken"}',
    );
  });

  it("non-approvers and agent-originated mail cannot confirm; the approver applies exactly once; a replay does nothing", async () => {
    const { code, runId } = await proposeRefund("A-1002");
    const refundsBefore = backend.refunds.size;
    await send(OTHER, `APPROVE ${code}`);
    await send(APPROVER, `APPROVE ${code}`, ["X-Postern-Recursion: 1"]);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await plans.get(runId))?.state).toBe("pending");
    expect(backend.refunds.size).toBe(refundsBefore);
    const events = (await stores.runEvents.list(runId)).filter((e) => e.type === "confirm-refused");
    expect(events.map((e) => e.data.reason)).toEqual(["confirm-not-approver"]);

    await send(APPROVER, `APPROVE ${code}\n\nLooks fine.\n\n> APPROVE ${code}`);
    await waitFor("the plan to be applied", async () =>
      (await plans.get(runId))?.state === "applied" ? true : undefined,
    );
    expect(backend.refunds.size).toBe(refundsBefore + 1);
    // The agent got a new round with the results and told the customer.
    await waitFor("the reply after applying", async () =>
      (await mails()).some((m) => m.text?.includes("Your refund has been issued.")) ? true : undefined,
    );

    await send(APPROVER, `APPROVE ${code}`);
    await new Promise((r) => setTimeout(r, 2000));
    expect(backend.refunds.size).toBe(refundsBefore + 1);
  });

  it("a plan whose stored arguments were altered after the card went out is not applied", async () => {
    const { code, runId } = await proposeRefund("A-1002");
    const refundsBefore = backend.refunds.size;
    await stack.clients.dynamo.send(
      new UpdateCommand({
        TableName: stack.resources.tables.state,
        Key: { pk: `plan#${runId}`, sk: "plan" },
        UpdateExpression: "SET ops[0].#input.amountCents = :big",
        ExpressionAttributeNames: { "#input": "input" },
        ExpressionAttributeValues: { ":big": 1999 },
      }),
    );
    await send(APPROVER, `APPROVE ${code}`);
    await waitFor("the plan to be marked tampered", async () =>
      (await plans.get(runId))?.state === "tampered" ? true : undefined,
    );
    expect(backend.refunds.size).toBe(refundsBefore);
  });

  it("a Czech refusal on top of a colleague's quoted approval applies nothing, and the approver is told what to send", async () => {
    // Outlook's plain-text reply in Czech puts `Od:` / `Odesláno:` / `Komu:` / `Předmět:` above
    // the quoted reply-all of a colleague who wrote APPROVE and the code. The refusal is the first line: the rule
    // of position, not a list of header labels, keeps the refund from running.
    const { code, runId } = await proposeRefund("A-1002");
    const refundsBefore = backend.refunds.size;
    await send(
      APPROVER,
      [
        "Ne, neschvaluji. Tohle je podvod.",
        "",
        "S pozdravem",
        "Dana",
        "",
        "Od: Jim Novák <jim.novak@example.com>",
        "Odesláno: úterý 4. března 2025 10:20",
        "Komu: Dana Approver <boss@approvers.example>",
        `Předmět: RE: Approval needed - code ${formatCode(code)}`,
        "",
        `APPROVE ${code}`,
        "",
        "Jim",
      ].join("\r\n"),
      ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"],
    );
    const notice = await waitFor("the notice to the approver", async () =>
      (await mails()).find(
        (m) =>
          m.to?.some((a) => a.address === APPROVER) &&
          m.subject === "Nothing was approved" &&
          (m.text ?? "").includes(`The code: ${formatCode(code)}`),
      ),
    );
    expect(notice.text).toContain(
      "reply with a first line that is the word APPROVE, a space and the code below",
    );
    expect(notice.text).toContain("Reason code: confirm-no-decision");
    // Give a wrong apply every chance to land before looking.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await plans.get(runId))?.state).toBe("pending");
    expect(backend.refunds.size).toBe(refundsBefore);
    const events = (await stores.runEvents.list(runId)).filter((e) => e.type === "confirm-unclear");
    expect(events.map((e) => e.data.understood)).toEqual(["nothing"]);
  });

  it("CANCEL with the code discards the plan", async () => {
    const { code, runId } = await proposeRefund("A-1002");
    await send(APPROVER, `CANCEL ${code}`);
    await waitFor("the plan to be cancelled", async () =>
      (await plans.get(runId))?.state === "cancelled" ? true : undefined,
    );
  });
});

describe("an approver on Microsoft 365 (To, Cc and threading unsigned)", () => {
  /** Exchange Online signs exactly these (docs/gate.md). */
  const MICROSOFT = ["from", "date", "subject", "message-id", "content-type", "mime-version"];

  it("approves the card by replying to it: the reply joins by the card's SES Message-ID and applies", async () => {
    const { code, runId } = await proposeRefund("A-1002");
    const refundsBefore = backend.refunds.size;
    const card = (await mails()).find((m) => m.subject?.includes(formatCode(code)));
    if (!card?.messageId || !card.subject) throw new Error("no card");
    const key = ensureDevKey(dir, stack.zoneFile, "approvers.example");
    if (!key.ok) throw new Error(key.reason);
    const raw = await signMessage(
      [
        `From: ${APPROVER}`,
        `To: Shop <${AGENT}>`,
        `Subject: RE: ${card.subject}`,
        `Date: ${new Date().toUTCString()}`,
        `Message-ID: <${Math.random().toString(16).slice(2)}@approvers.example>`,
        `In-Reply-To: ${card.messageId}`,
        `References: ${card.messageId}`,
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=us-ascii",
        "",
        `APPROVE ${code}`,
        "",
      ].join("\r\n"),
      {
        domain: "approvers.example",
        selector: key.key.selector,
        privateKeyPem: key.key.privateKeyPem,
        headers: MICROSOFT,
        signTime: new Date(),
      },
    );
    // handed to the intake as signed (devSend would add a signature of its own)
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: stack.smtp.port,
      secure: false,
      ignoreTLS: true,
    });
    await transport
      .sendMail({ envelope: { from: APPROVER, to: [AGENT] }, raw })
      .finally(() => transport.close());
    await waitFor("the plan to be applied", async () =>
      (await plans.get(runId))?.state === "applied" ? true : undefined,
    );
    expect(backend.refunds.size).toBe(refundsBefore + 1);
    const stored = (await stores.messages.listByAgent(AGENT, { limit: 20 })).find(
      (m) => m.from === APPROVER && m.subject.startsWith("RE: "),
    );
    expect(stored).toMatchObject({ addressing: "reply", threadedBy: "own-message-id" });
  });
});
