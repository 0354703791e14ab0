import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import { GROUPS } from "../../console/auth/principal.ts";
import { startHostileServer } from "../helpers/mcp-servers/hostile.ts";
import { waitFor } from "../helpers/pipeline-stack.ts";
import { browserPolicy, CHROMIUM_ARGS, findChromium } from "./browser-env.ts";
import { APPROVER, type ConsoleStack, HELPDESK, SHOP, startConsoleStack, stopAfterAll } from "./harness.ts";

/**
 * The console in a real browser (Debian's Chromium driven by playwright-core) against the local stack: sign in,
 * a thread and a run's timeline after a mail, a refused mail without its text, an access rule edited in the
 * browser and obeyed by the next mail, a plan applied once, and an XSS payload rendered as inert text.
 */
const policy = browserPolicy(process.env, findChromium());
const executablePath = policy.kind === "run" ? policy.executablePath : undefined;

// No silent pass: without a browser, CI fails here naming the fix; a developer's machine reports the skip, and the
// console project's global setup (browser-setup.ts) repeats it as one line at the end of the run.
if (policy.kind !== "run")
  it(
    policy.kind === "fail"
      ? "have a Chromium to run in (CI requires it)"
      : "have no Chromium here: reported, not run",
    () => {
      if (policy.kind === "fail") throw new Error(policy.message);
      expect(policy.message).toContain("apt-get install -y chromium");
    },
  );

describe.runIf(executablePath)("the console in Chromium", () => {
  let s: ConsoleStack;
  let browser: Browser;
  beforeAll(async () => {
    [s, browser] = await Promise.all([
      startConsoleStack(),
      chromium.launch({ executablePath, args: CHROMIUM_ARGS }),
    ]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
  });
  stopAfterAll(() => s);

  async function mail(
    to: string,
    subject: string,
    body: string,
    from = "carol@customer.example",
    displayName?: string,
  ) {
    if (displayName) {
      const raw = Buffer.from(
        [
          `From: ${displayName} <${from}>`,
          `To: ${to}`,
          `Subject: ${subject}`,
          `Message-ID: <${Date.now()}@x>`,
          "",
          body,
          "",
        ].join("\r\n"),
      );
      const sent = await devSend({
        dir: s.dir,
        zoneFile: s.stack.zoneFile,
        from,
        to: [to],
        raw,
        port: s.stack.smtp.port,
      });
      if (!sent.ok) throw new Error(sent.reason);
      return;
    }
    const sent = await devSend({
      dir: s.dir,
      zoneFile: s.stack.zoneFile,
      from,
      to: [to],
      subject,
      body,
      port: s.stack.smtp.port,
    });
    if (!sent.ok) throw new Error(sent.reason);
  }

  /** A fresh browser profile signed in with a one-time link; every page's script errors and dialogs are kept. */
  async function signedIn(who?: Parameters<ConsoleStack["console"]["link"]>[0]) {
    const context: BrowserContext = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror ${e.message}`));
    page.on("dialog", (d) => {
      problems.push(`dialog ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(s.console.link(who));
    return { context, page, problems };
  }

  async function runOf(agent: string, since: number) {
    return waitFor(`a finished run of ${agent}`, async () => {
      const runs = await s.stores.runs.listRecent(20);
      return runs.find((r) => r.agent === agent && r.state !== "running" && Date.parse(r.createdAt) >= since);
    });
  }

  it("signs in with the one-time link, and the link does not work twice", async () => {
    const link = s.console.link();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    expect(await page.locator("h1").textContent()).toBe("Home");
    expect(await page.locator("header .who").textContent()).toContain("(admin)");
    const other = await (await browser.newContext()).newPage();
    await other.goto(link);
    expect(await other.locator("h1").textContent()).toContain("used or expired");
    await context.close();
  });

  it("shows a thread and a run's timeline after a mail", async () => {
    const since = Date.now() - 1000;
    await mail(HELPDESK, "Opening hours", "When are you open on Sunday?");
    const run = await runOf(HELPDESK, since);
    const { page, context, problems } = await signedIn();
    await page.click(`a[href="/agents/${encodeURIComponent(HELPDESK)}"]`);
    await page.click("text=Opening hours");
    expect(await page.locator("pre.untrusted").first().textContent()).toContain(
      "When are you open on Sunday?",
    );
    expect(await page.locator(".untrusted-label").first().textContent()).toContain("untrusted");
    await page.click("text=run");
    expect(page.url()).toContain(`/runs/${run.runId}`);
    const items = await page.locator("ol.timeline li[data-type]").allTextContents();
    const order = ["model-request", "model-turn", "tool-call", "tool-result", "run-finished"];
    const types = await page
      .locator("ol.timeline li[data-type]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-type")));
    expect(order.map((t) => types.indexOf(t))).toEqual(
      [...order.map((t) => types.indexOf(t))].sort((a, b) => a - b),
    );
    expect(items.join("\n")).toContain("tool send_email ok");
    expect(await page.locator("ol.timeline").textContent()).toContain("outbound mail");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("lists a refused mail by reason, without its subject, body or display name", async () => {
    await mail(
      "nobody@agents.example.net",
      "TOPSECRET-SUBJECT",
      "TOPSECRET-BODY",
      "eve@customer.example",
      "Eve Display",
    );
    const { page, context } = await signedIn();
    await waitFor("the refusal in the console", async () => {
      await page.goto(`${s.console.url}/refusals`);
      return (await page.locator("table tbody tr").count()) > 0 ? true : undefined;
    });
    const text = (await page.content()) ?? "";
    expect(text).toContain("nobody@agents.example.net");
    expect(text).not.toContain("TOPSECRET");
    expect(text).not.toContain("Eve Display");
    const reason = (await page.locator("table tbody tr td:nth-child(3)").first().textContent()) ?? "";
    await page.fill('input[name="reason"]', reason);
    await page.click('button:text("Filter")');
    expect(page.url()).toContain(`reason=${reason}`);
    expect(await page.locator("table tbody tr").count()).toBeGreaterThan(0);
    await context.close();
  });

  it("edits an access rule in the browser, and the next mail obeys it", async () => {
    const mallory = "mallory@customer.example";
    const { page, context } = await signedIn();
    await page.goto(`${s.console.url}/admin`);
    await page.selectOption('form[action="/admin/accessRules/add"] select[name="agent"]', HELPDESK);
    await page.fill('form[action="/admin/accessRules/add"] input[name="pattern"]', mallory);
    await page.selectOption('form[action="/admin/accessRules/add"] select[name="effect"]', "deny");
    await page.click('form[action="/admin/accessRules/add"] button[type="submit"]');
    expect(await page.locator(".flash").textContent()).toContain("Saved");
    // An invalid pattern is refused with the field and the fix.
    await page.fill('form[action="/admin/accessRules/add"] input[name="pattern"]', "not a pattern");
    await page.click('form[action="/admin/accessRules/add"] button[type="submit"]');
    expect(await page.locator(".issues").textContent()).toContain("pattern");
    await page.goto(`${s.console.url}/audit`);
    expect(await page.locator("table tbody tr").first().textContent()).toContain(mallory);

    const since = new Date().toISOString();
    await mail(HELPDESK, "Let me in", "Hello", mallory);
    await waitFor("mallory's refusal", async () => {
      await page.goto(`${s.console.url}/refusals?reason=access-denied`);
      const rows = await page.locator("table tbody tr").allTextContents();
      return rows.some((r) => r.includes(mallory)) ? true : undefined;
    });
    const runs = await s.stores.runs.listRecent(50);
    expect(runs.filter((r) => r.sender === mallory && r.createdAt >= since)).toEqual([]);
    await context.close();
  });

  it("applies a pending plan once: a second click does nothing", async () => {
    await mail(SHOP, "Refund A-1002", "Order A-1002 arrived broken.");
    const plan = await waitFor("a pending plan", async () => {
      const p = await s.stores.state.get(`plan#${await latestRunId(SHOP)}`, "plan");
      return p?.state === "pending" ? p : undefined;
    });
    const runId = String(plan.pk).slice("plan#".length);
    const { page, context, problems } = await signedIn({ email: APPROVER, groups: [GROUPS.viewers] });
    await page.goto(`${s.console.url}/plans`);
    await page.click(`a[href="/plans/${runId}"]`);
    // The operation's arguments, under who asked (whose words come first on the page).
    expect(await page.locator("li pre.untrusted").first().textContent()).toContain('"order": "A-1002"');
    const stale = await context.newPage();
    await stale.goto(page.url());
    await page.click('button:text("Apply")');
    expect(await page.locator(".flash").textContent()).toContain("Decision sent");
    await waitFor("the plan applied", async () =>
      (await s.stores.state.get(`plan#${runId}`, "plan"))?.state === "applied" ? true : undefined,
    );
    await stale.click('button:text("Apply")');
    expect(await stale.locator(".flash").textContent()).toContain("nothing was done");
    const ops = (await s.stores.runEvents.list(runId)).filter((e) => e.type === "plan-op");
    expect(ops).toHaveLength(1);
    await page.goto(`${s.console.url}/runs/${runId}`);
    const timeline = (await page.locator("ol.timeline").textContent()) ?? "";
    expect(timeline).toContain("issue_refund proposed");
    expect(timeline).toContain("issue_refund applied");
    expect(timeline.indexOf("proposed")).toBeLessThan(timeline.indexOf("applied"));
    expect(problems).toEqual([]);
    await context.close();
  });

  it("renders an XSS payload in a subject and body as inert text", async () => {
    const since = Date.now() - 1000;
    const payload = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;
    await mail(
      HELPDESK,
      `${payload} javascript:alert(1)`,
      `${payload}\n<a href="javascript:alert(2)">click</a>`,
    );
    await runOf(HELPDESK, since);
    const { page, context, problems } = await signedIn();
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused/.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${s.console.url}/agents/${encodeURIComponent(HELPDESK)}`);
    await page.click("a:has-text('javascript:alert(1)')");
    expect(await page.title()).not.toBe("pwned");
    expect(await page.locator("main img, main script, main a[href^='javascript']").count()).toBe(0);
    const body = (await page.locator("pre.untrusted").allTextContents()).join("\n");
    expect(body).toContain("<script>document.title='pwned'</script>");
    expect(body).toContain('<a href="javascript:alert(2)">click</a>');
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("every page holds at 390 px (a phone) and 1280 px: no sideways scrolling (screenshots with POSTERN_SCREENSHOTS=1)", async () => {
    const since = Date.now() - 1000;
    await mail(
      HELPDESK,
      "A long subject that a phone must wrap without scrolling the whole page sideways",
      "Hi",
    );
    await mail("nobody@agents.example.net", "x", "y", "eve@customer.example");
    await mail(SHOP, "Refund A-1002", "Order A-1002 arrived broken.");
    const run = await runOf(HELPDESK, since);
    const plan = await waitFor("a run with a plan", async () => {
      for (const r of await s.stores.runs.listRecent(50))
        if (r.agent === SHOP && (await s.stores.state.get(`plan#${r.runId}`, "plan"))) return r;
      return undefined;
    });
    // The committed screenshots (test/console/screenshots) are refreshed only when asked (POSTERN_SCREENSHOTS=1):
    // every run renders new times and ids, and a test run should not leave the tree changed.
    // A full-page PNG of 38 pages is about a third of this test's time, so an ordinary run checks the layout only.
    const refresh = process.env.POSTERN_SCREENSHOTS === "1";
    const dir = join(import.meta.dirname, "screenshots");
    if (refresh) mkdirSync(dir, { recursive: true });
    const pages: [string, string][] = [
      ["home", "/"],
      ["agent", `/agents/${encodeURIComponent(HELPDESK)}`],
      ["thread", `/agents/${encodeURIComponent(HELPDESK)}/threads/${encodeURIComponent(run.threadId ?? "")}`],
      ["run", `/runs/${run.runId}`],
      ["refusals", "/refusals"],
      ["failures", "/failures"],
      ["plans", "/plans"],
      ["plan", `/plans/${plan.runId}`],
      ["admin", "/admin"],
      ["remove", `/admin/agents/remove?address=${encodeURIComponent(SHOP)}`],
      ["audit", "/audit"],
      ["settings", "/settings"],
      ["webhooks", "/webhooks"],
      ["webhook-edit", "/webhooks/crm/edit"],
      ["webhook-remove", "/webhooks/crm/remove"],
      ["mcp-add", "/mcp/add"],
      ["mcp-review", "/mcp/orders/review"],
      ["mcp-remove", "/mcp/orders/remove"],
    ];
    // An endpoint and an MCP server (the hostile one: its poisoned words must wrap too) for their pages.
    await s.stores.admin.putWebhook({
      id: "crm",
      url: "https://hooks.example.com/postern/a-long-path-that-a-phone-must-wrap",
      events: ["mail.accepted", "run.failed"],
      description: "the CRM's intake",
    });
    const hostile = await startHostileServer();
    await s.stores.admin.putMcpServer({ id: "orders", transport: "http", url: hostile.url });
    for (const [width, height, suffix] of [
      [390, 844, "390"],
      [1280, 900, "1280"],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      await page.goto(s.console.link());
      const holds = async (name: string) => {
        expect(await page.locator("h1").count(), name).toBe(1);
        // Open every <details> (tool inputs and results) so the screenshot shows them.
        for (const d of await page.locator("details").all())
          await d.evaluate((e) => e.setAttribute("open", ""));
        // The page's width past the viewport (the test's tsconfig has no DOM types: the browser's globals are typed here).
        const overflow = await page.evaluate(() => {
          const g = globalThis as unknown as {
            document: { documentElement: { scrollWidth: number } };
            innerWidth: number;
          };
          return g.document.documentElement.scrollWidth - g.innerWidth;
        });
        expect(overflow, `${name} at ${width} px is ${overflow} px too wide`).toBeLessThanOrEqual(0);
        if (refresh) {
          const shot = await page.screenshot({ path: join(dir, `${name}-${suffix}.png`), fullPage: true });
          // PNG's signature: the page rendered to an image, not an empty capture.
          expect(shot.subarray(1, 4).toString("latin1"), name).toBe("PNG");
        }
      };
      for (const [name, path] of pages) {
        await page.goto(`${s.console.url}${path}`);
        await holds(name);
      }
      // The page a signing secret is shown on (once): the answer to the add form, submitted in the browser.
      await page.goto(`${s.console.url}/webhooks`);
      await page.locator("details#add").evaluate((e) => e.setAttribute("open", ""));
      await page.fill('details#add input[name="id"]', `shot-${suffix}`);
      await page.fill('details#add input[name="url"]', "https://hooks.example.com/postern");
      await page.check('details#add input[name="allEvents"]');
      await page.click('details#add button[type="submit"]');
      expect(await page.locator("code.secret").count()).toBe(1);
      await holds("webhook-secret");
      await context.close();
    }
    await hostile.close();
  }, 120_000);

  async function latestRunId(agent: string): Promise<string> {
    const runs = await s.stores.runs.listRecent(20);
    return runs.find((r) => r.agent === agent)?.runId ?? "none";
  }
});
