import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEMO_REFUNDS_SCRIPT,
  DEMO_REFUNDS_SCRIPT_BEFORE_OUTCOMES,
  DEMO_REFUNDS_SCRIPT_FILE,
  DEMO_SENDER,
  ensureDemoFiles,
} from "../../../cli/local/demo.ts";
import type { OutboundRequest } from "../../../shared/payloads/outbound.ts";
import { sendEmailTool } from "../../../shared/tool-framework/builtin/send-email.ts";
import { demoOrderBackend, orderTools } from "../../../tools/orders.ts";
import { APPROVER, confirmMessage, toolkit } from "../../fakes/builders.ts";
import { QUEUES, stepWorld } from "../../helpers/step-world.ts";

/**
 * The demo's scripted refund desk (cli/local/demo.ts) on the in-memory step: what it tells the requester after an
 * approval is what the apply did. The issue: a refund approved for someone whose order it is not returned
 * `order-not-found`, and the requester was still mailed "approved and issued".
 */
async function refundAsked(from: string) {
  const w = stepWorld({
    tools: [sendEmailTool, ...orderTools(demoOrderBackend())],
    toolkits: [toolkit("mail", ["send_email"]), toolkit("refunds", ["issue_refund"])],
    approvers: [{ toolkit: "refunds", address: APPROVER }],
    turns: [...DEMO_REFUNDS_SCRIPT.turns],
  });
  const runId = await w.startReplyRun({ from });
  await w.drive(runId);
  const code = (await w.plans.get(runId))?.code ?? "";
  const outcome = await w.deps.applyConfirm(confirmMessage({ code }));
  await w.drive(`${runId}-applied`);
  const replies = (w.queue.bodies(QUEUES.outbound) as OutboundRequest[])
    .filter((b) => b.mode === "reply" && b.runId === `${runId}-applied`)
    .map((b) => b.body);
  return { outcome, replies };
}

describe("the demo refund desk tells the requester what the apply did", () => {
  it("the order's owner: the refund ran, and only then is it called issued", async () => {
    const { outcome, replies } = await refundAsked(DEMO_SENDER);
    expect(outcome.status).toBe("applied");
    expect(replies).toEqual(["Your refund of order A-1001 has been approved and issued."]);
  });

  it("someone else: order-not-found at apply, and the reply says nothing was refunded", async () => {
    const { outcome, replies } = await refundAsked("mallory@example.com");
    expect(outcome).toMatchObject({ status: "failed", reason: "order-not-found" });
    expect(replies).toEqual([
      "Your refund of order A-1001 was approved, but it could not be issued: nothing was refunded. The operator has been told.",
    ]);
  });
});

describe("a .postern written before outcomes", () => {
  const dirWith = (script: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), "postern-demo-"));
    writeFileSync(join(dir, DEMO_REFUNDS_SCRIPT_FILE), `${JSON.stringify(script, null, 2)}\n`);
    ensureDemoFiles(dir);
    return JSON.parse(readFileSync(join(dir, DEMO_REFUNDS_SCRIPT_FILE), "utf8"));
  };

  it("gets the current refund script when it holds exactly the old one (which claimed success whatever happened)", () => {
    expect(dirWith(DEMO_REFUNDS_SCRIPT_BEFORE_OUTCOMES)).toEqual(DEMO_REFUNDS_SCRIPT);
  });

  it("keeps an operator's edited script", () => {
    const edited = { turns: [...DEMO_REFUNDS_SCRIPT_BEFORE_OUTCOMES.turns, { text: "mine" }] };
    expect(dirWith(edited)).toEqual(edited);
  });
});
