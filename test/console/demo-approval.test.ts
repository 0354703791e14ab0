import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import PostalMime from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_DEFAULTS } from "../../cli/commands/start.ts";
import {
  DEMO_AGENT,
  DEMO_OPERATOR,
  DEMO_REFUNDS_AGENT,
  DEMO_REFUNDS_TOOLKIT,
  DEMO_SENDER,
} from "../../cli/local/demo.ts";
import { devSend } from "../../cli/local/dev-send.ts";
import { pipelineHandlers } from "../../cli/local/pipeline.ts";
import { type LocalStack, startLocalStack } from "../../cli/local/stack.ts";
import { DEFAULT_CONSOLE_EMAIL, type LocalConsole, startLocalConsole } from "../../console/server.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { quietLogger, waitFor } from "../helpers/pipeline-stack.ts";
import { CHROMIUM_ARGS, findChromium } from "./browser-env.ts";

/**
 * Local approvals work out of the box. The stack started as `npm start` starts it with nothing
 * configured (the demo), the console with its default operator: a newcomer mails the demo's refund desk, sees the
 * pending plan, finds its confirm card in the outbox addressed to the console operator, and applies it in Chromium;
 * the refund runs once and the sender is told. (browser.test.ts says how to get Chromium when it is missing.)
 */
const executablePath = findChromium();

describe("the demo's defaults", () => {
  it("make the console operator the address the demo's approver is, one the outbound mails", () => {
    expect(DEFAULT_CONSOLE_EMAIL).toBe(DEMO_OPERATOR);
    expect(START_DEFAULTS.consoleEmail).toBe(DEMO_OPERATOR);
  });
});

describe.runIf(executablePath)("the demo approval flow in Chromium", () => {
  let dir: string;
  let stack: LocalStack;
  let console: LocalConsole;
  let stores: Stores;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "postern-demo-approval-"));
    // No postern.config.json in dir: the demo config, key and admin state, as a first `npm start` gets them.
    stack = await startLocalStack({
      dir,
      configPath: join(dir, "postern.config.json"),
      smtpPort: 0,
      waitTimeSeconds: 1,
      handlers: (ctx) => pipelineHandlers(ctx, quietLogger),
    });
    [console, browser] = await Promise.all([
      startLocalConsole({
        clients: stack.clients,
        resources: stack.resources,
        config: stack.config.config,
        logger: recordingLogger(),
        port: 0,
      }),
      chromium.launch({ executablePath, args: CHROMIUM_ARGS }),
    ]);
    stores = makeStores(stack.clients, stack.resources, recordingLogger());
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await console?.stop();
    await stack?.stop();
  });

  async function outbox() {
    const files = readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml"));
    return Promise.all(
      files.map(async (f) => ({
        mail: await PostalMime.parse(readFileSync(join(stack.outboxDir, f))),
        // The capture writes the envelope beside the raw mail, a moment later.
        envelope: existsSync(join(stack.outboxDir, f.replace(/\.eml$/, ".json")))
          ? JSON.parse(readFileSync(join(stack.outboxDir, f.replace(/\.eml$/, ".json")), "utf8"))
          : undefined,
      })),
    );
  }

  it("is seeded: two agents, the refund desk's confirm tool, the console operator as its approver", async () => {
    expect(stack.demo).toBe(true);
    expect(stack.demoSeed).toEqual({ seeded: true });
    const doc = await stores.admin.exportDocument();
    expect(doc.agents.map((a) => a.address)).toEqual([DEMO_AGENT, DEMO_REFUNDS_AGENT]);
    expect(doc.toolkits.find((t) => t.id === DEMO_REFUNDS_TOOLKIT)).toMatchObject({
      tools: ["issue_refund"],
      agents: [DEMO_REFUNDS_AGENT],
    });
    expect(doc.approvers).toEqual([{ toolkit: DEMO_REFUNDS_TOOLKIT, address: DEMO_OPERATOR }]);
  });

  it("a refund request: a pending plan, its card in the outbox, applied once in the console", async () => {
    const sent = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: DEMO_SENDER,
      to: [DEMO_REFUNDS_AGENT],
      subject: "Refund",
      body: "Please refund order A-1001.",
      port: stack.smtp.port,
    });
    if (!sent.ok) throw new Error(sent.reason);

    const card = await waitFor("the confirm card in the outbox", async () =>
      (await outbox()).find((m) => m.mail.subject?.startsWith("Approval needed") && m.envelope),
    );
    // Delivered by the outbound to the console operator: not refused as recipient-invalid.
    expect(card.mail.to?.map((a) => a.address)).toEqual([DEMO_OPERATOR]);
    expect(card.envelope.destination?.ToAddresses).toEqual([DEMO_OPERATOR]);
    expect(card.mail.text).toContain('"order":"A-1001"');
    const run = await waitFor("the refund desk's run", async () =>
      (await stores.runs.listRecent(10)).find((r) => r.agent === DEMO_REFUNDS_AGENT),
    );
    expect((await stores.state.get(`plan#${run.runId}`, "plan"))?.state).toBe("pending");

    // The newcomer signs in with the link `npm start` prints (the default operator) and applies the plan.
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(console.link());
    expect(await page.locator("header .who").textContent()).toContain(DEMO_OPERATOR);
    await page.goto(`${console.url}/plans`);
    await page.click(`a[href="/plans/${run.runId}"]`);
    // Who asked comes first, their words fenced as theirs; then the operations' exact arguments.
    expect(await page.locator("main").textContent()).toContain(DEMO_SENDER);
    expect(await page.locator("pre.untrusted").first().textContent()).toContain("Please refund order A-1001");
    expect(await page.locator("li pre.untrusted").first().textContent()).toContain('"order": "A-1001"');
    await page.click('button:text("Apply")');
    expect(await page.locator(".flash").textContent()).toContain("Decision sent");

    await waitFor("the plan applied", async () =>
      (await stores.state.get(`plan#${run.runId}`, "plan"))?.state === "applied" ? true : undefined,
    );
    const told = await waitFor("the reply saying the refund was issued", async () =>
      (await outbox()).find((m) => m.mail.text?.includes("has been approved and issued")),
    );
    expect(told.mail.to?.map((a) => a.address)).toEqual([DEMO_SENDER]);
    const ops = (await stores.runEvents.list(run.runId)).filter((e) => e.type === "plan-op");
    expect(ops).toHaveLength(1);
    await page.goto(`${console.url}/runs/${run.runId}`);
    expect(await page.locator("ol.timeline").textContent()).toContain("issue_refund applied");
    expect(problems).toEqual([]);
    await context.close();
  });
});
