// G14 against real mail clients: every reply shape in test/fixtures/approval-replies (modelled on public corpora
// of real replies, see its README) goes through the real pipeline as an approver's signed reply to a real card,
// and must end exactly as the fixture says: applied, cancelled, or nothing applied and the approver told why.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import MailComposer from "nodemailer/lib/mail-composer";
import PostalMime, { type Email } from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import type { LocalStack } from "../../cli/local/stack.ts";
import { formatCode } from "../../shared/mail/confirm-reading.ts";
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
const FIXTURES = join(import.meta.dirname, "../fixtures/approval-replies");

interface Shape {
  readonly name: string;
  readonly client: string;
  /** `multipart`: `body` is the text/plain part, `html` the text/html part of one multipart/alternative reply. */
  readonly format: "text" | "html" | "multipart";
  readonly body: string;
  readonly html?: string;
  /** Only approve and cancel move the plan; none, ambiguous and misplaced leave it pending and get a notice. */
  readonly expected: "approve" | "cancel" | "none" | "ambiguous" | "misplaced";
}
const shapes: { file: string; shape: Shape }[] = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((file) => ({ file, shape: JSON.parse(readFileSync(join(FIXTURES, file), "utf8")) as Shape }));

let stack: LocalStack;
let stores: Stores;
let plans: PlanStore;
let dir: string;
const backend = demoOrderBackend();

const outbox = async (): Promise<Email[]> =>
  Promise.all(
    readdirSync(stack.outboxDir)
      .filter((f) => f.endsWith(".eml"))
      .map((f) => PostalMime.parse(readFileSync(join(stack.outboxDir, f)))),
  );

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

/** The fixture's body with the real card (as the card mail's text) and the real code substituted. */
function replyBody(shape: Shape, card: string, code: string, body = shape.body): string {
  const quoted = card
    .split("\n")
    .map((l) => (l === "" ? ">" : `> ${l}`))
    .join("\n");
  const html = card
    .split("\n")
    .map((l) => `<div>${escapeHtml(l) || "<br>"}</div>`)
    .join("\n");
  return body
    .replaceAll("{{CARD_TEXT}}", card)
    .replaceAll("{{CARD_QUOTED}}", quoted)
    .replaceAll("{{CARD_HTML}}", html)
    .replaceAll("{{CODE_GROUPED}}", formatCode(code))
    .replaceAll("{{CODE}}", code);
}

async function proposeAll(count: number): Promise<Map<string, { code: string; runId: string; card: Email }>> {
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const sent = await devSend({
        dir,
        zoneFile: stack.zoneFile,
        from: CUSTOMER,
        to: [AGENT],
        subject: `Refund case ${i}`,
        body: `Order A-1002 arrived broken (case ${i}).`,
        port: stack.smtp.port,
      });
      if (!sent.ok) throw new Error(sent.reason);
    }),
  );
  const cards = await waitFor(
    `${count} confirm cards`,
    async () => {
      const found = (await outbox()).filter((m) => m.subject?.startsWith("Approval needed"));
      return found.length >= count ? found : undefined;
    },
    120_000,
  );
  const out = new Map<string, { code: string; runId: string; card: Email }>();
  for (const card of cards) {
    const code =
      /^code: (\S{4}) (\S{4}) (\S{2})$/m
        .exec(card.text ?? "")
        ?.slice(1)
        .join("") ?? "";
    const loc = await plans.runForCode(code);
    if (loc) out.set(code, { code, runId: loc.runId, card });
  }
  return out;
}

async function reply(shape: Shape, target: { code: string; card: Email }): Promise<void> {
  const body = replyBody(shape, target.card.text ?? "", target.code);
  const raw = await new MailComposer({
    from: APPROVER,
    to: AGENT,
    subject: `Re: ${target.card.subject}`,
    inReplyTo: target.card.messageId,
    references: target.card.messageId,
    ...(shape.format === "html" ? { html: body } : { text: body }),
    ...(shape.format === "multipart"
      ? { html: replyBody(shape, target.card.text ?? "", target.code, shape.html ?? "") }
      : {}),
  })
    .compile()
    .build();
  const sent = await devSend({
    dir,
    zoneFile: stack.zoneFile,
    from: APPROVER,
    to: [AGENT],
    raw,
    port: stack.smtp.port,
  });
  if (!sent.ok) throw new Error(sent.reason);
}

beforeAll(async () => {
  ({ stack, dir } = await startPipelineStack({
    config: {
      domains: ["agents.example.net"],
      models: [{ id: "demo", provider: "scripted", script: "script.json", egress: "internal" }],
      budgets: { runsPerSenderPerDay: 1000, runsPerAgentPerDay: 1000 },
    },
    script: {
      turns: [
        {
          toolCalls: [
            { name: "issue_refund", input: { order: "A-1002", amountCents: 2000, reason: "broken" } },
          ],
        },
        { text: "proposed" },
        { text: "applied, done" },
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

describe("approval replies from real mail clients (G14)", () => {
  it(`the corpus holds at least 80 reply shapes (${shapes.length})`, () => {
    expect(shapes.length).toBeGreaterThanOrEqual(80);
  });

  it("each shape ends as its fixture says, through the real pipeline", async () => {
    const targets = [...(await proposeAll(shapes.length)).values()];
    expect(targets.length).toBe(shapes.length);
    const cases = shapes.map((s, i) => ({ ...s, target: targets[i] as (typeof targets)[number] }));
    await Promise.all(cases.map((c) => reply(c.shape, c.target)));

    const final = { approve: "applied", cancel: "cancelled" } as const;
    const observe = async () => {
      const all = await outbox();
      return Promise.all(
        cases.map(async (c) => {
          const state = (await plans.get(c.target.runId))?.state;
          const noticed = all.some(
            (m) =>
              m.to?.some((a) => a.address === APPROVER) &&
              !m.subject?.startsWith("Approval needed") &&
              (m.text ?? "").includes(`The code: ${formatCode(c.target.code)}`),
          );
          const want =
            c.shape.expected === "approve" || c.shape.expected === "cancel"
              ? { state: final[c.shape.expected], noticed: false }
              : { state: "pending", noticed: true };
          return { file: c.file, got: { state, noticed }, want };
        }),
      );
    };
    // Settled when every decision landed and every notice went out (or two minutes passed): then compare all.
    const until = Date.now() + 120_000;
    let rows = await observe();
    while (
      Date.now() < until &&
      rows.some((r) => r.got.state !== r.want.state || r.got.noticed !== r.want.noticed)
    ) {
      await new Promise((r) => setTimeout(r, 250));
      rows = await observe();
    }
    await new Promise((r) => setTimeout(r, 1000));
    rows = await observe();
    expect(rows.filter((r) => JSON.stringify(r.got) !== JSON.stringify(r.want))).toEqual([]);
    const applied = cases.filter((c) => c.shape.expected === "approve").length;
    expect(backend.refunds.size).toBe(applied);
  }, 240_000);
});
