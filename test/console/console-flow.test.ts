import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import { readSendOutcome } from "../../shared/outbound/send-outcomes.ts";
import { sendOutcomeLog } from "../../shared/outbound/wiring.ts";
import { waitFor } from "../helpers/pipeline-stack.ts";
import { ConsoleClient, type ConsoleStack, HELPDESK, startConsoleStack, stopAfterAll } from "./harness.ts";

let s: ConsoleStack;
beforeAll(async () => {
  s = await startConsoleStack();
}, 60_000);
stopAfterAll(() => s);

async function mail(to: string, subject: string, body: string, from = "carol@customer.example") {
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

describe("a mail, seen in the console", () => {
  it("shows the thread and the run's timeline", async () => {
    await mail(HELPDESK, "Opening hours", "When are you open on Sunday?");
    const run = await waitFor("the run to finish", async () => {
      const page = await s.stores.runs.listRecent(5);
      return page.find((r) => r.agent === HELPDESK && r.state !== "running");
    });
    const c = new ConsoleClient(s.console.url);
    await c.signIn(s.console.link());
    const agent = await (await c.get(`/agents/${encodeURIComponent(HELPDESK)}`)).text();
    expect(agent).toContain("Opening hours");
    const threadHref = /href="(\/agents\/[^"]+\/threads\/[^"]+)"/.exec(agent)?.[1];
    expect(threadHref).toBeDefined();
    const thread = await (await c.get(threadHref ?? "")).text();
    expect(thread).toContain("When are you open on Sunday?");
    expect(thread).toContain("untrusted");
    const timeline = await (await c.get(`/runs/${run.runId}`)).text();
    expect(timeline).toContain("tool send_email ok");
    expect(timeline).toContain("outbound mail");
    expect(timeline.indexOf("budget ok")).toBeLessThan(timeline.indexOf("run finished"));
  });
});

describe("SES's delivery events, on the agent's page", () => {
  it("shows this agent's bounces, complaints, rejects and delays, newest first, a remote diagnostic as plain text", async () => {
    const fixture = (name: string) =>
      JSON.parse(readFileSync(join(import.meta.dirname, `../fixtures/ses-events/${name}.json`), "utf8"));
    const log = sendOutcomeLog(s.stores);
    const sentBy = (
      r: Record<string, { source?: string; commonHeaders?: { from: string[] } }>,
      from: string,
    ) => {
      r.mail = { ...r.mail, source: from, commonHeaders: { from: [`Helpdesk <${from}>`] } };
      return JSON.stringify(r);
    };
    const bounce = fixture("bounce");
    bounce.bounce.bouncedRecipients[0].diagnosticCode = "smtp; 550 <script>alert(1)</script> no such user";
    for (const body of [sentBy(bounce, HELPDESK), sentBy(fixture("complaint"), "other@agents.example.net")]) {
      const read = readSendOutcome(body);
      if (!read.ok) throw new Error(read.reason);
      await log.record(read.event);
    }
    const c = new ConsoleClient(s.console.url);
    await c.signIn(s.console.link());
    const page = await (await c.get(`/agents/${encodeURIComponent(HELPDESK)}`)).text();
    const section = page.slice(page.indexOf("<h2>Delivery problems</h2>"));
    expect(section).toContain("bounced");
    expect(section).toContain("Permanent/General");
    expect(section).toContain("recipient@example.com");
    expect(section).toContain("EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000");
    expect(section).not.toContain("<script>");
    expect(section).toContain("&lt;script&gt;");
    // Another agent's complaint is its own.
    expect(section).not.toContain("abuse");
  });
});

describe("admin edits in the console", () => {
  it("go through the import validation (field and fix), and the audit log keeps who, when, before and after", async () => {
    const c = new ConsoleClient(s.console.url);
    await c.signIn(s.console.link());
    const csrf = await c.csrf();
    const bad = await c.post("/admin/toolkits/add", {
      _csrf: csrf,
      id: "kit",
      tools: "send_email",
      agents: "ghost@agents.example.net",
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("agents[0]</code>: no agent ghost@agents.example.net");
    const edit = await c.post("/admin/agents/edit", {
      _csrf: csrf,
      address: HELPDESK,
      name: "Front desk",
      model: "reply",
      enabled: "on",
    });
    expect(edit.status).toBe(303);
    expect((await s.stores.admin.getAgent(HELPDESK))?.name).toBe("Front desk");
    const [entry] = (await auditOf()).items;
    expect(entry?.actor).toBe("admin@operators.example");
    expect(entry?.outcome).toBe("applied");
    expect(entry?.before).toMatchObject({ name: "Helpdesk" });
    expect(entry?.after).toMatchObject({ name: "Front desk" });
    const audit = await (await c.get("/audit")).text();
    expect(audit).toContain("Front desk");
  });
});

describe("refused admin writes in the console", () => {
  /** The page's text as a reader sees it: tags dropped, entities decoded. */
  const text = async (r: Response) =>
    (await r.text())
      .replace(/<[^>]+>/g, "")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");

  it("name the field and what would be valid, and write nothing (no audit entry applied)", async () => {
    const c = new ConsoleClient(s.console.url);
    await c.signIn(s.console.link());
    const csrf = await c.csrf();
    const before = await s.stores.admin.exportDocument();
    const auditBefore = (await auditOf()).items.map((e) => e.at);
    const refused: [string, Record<string, string>, string[]][] = [
      [
        "/admin/agents/add",
        { address: "bad@other.com", name: "Bad", model: "gpt5", enabled: "on" },
        [
          'address: domain "other.com" is not registered; an agent\'s address must be at one of: agents.example.net',
          'model: no model "gpt5" in the catalog; one of: reply, refund',
        ],
      ],
      [
        // Not lower-cased behind the operator's back: refused, naming what would be stored.
        "/admin/agents/add",
        { address: "Front@agents.example.net", name: "Front", model: "reply", enabled: "on" },
        ['address: must be lower-case: "front@agents.example.net"'],
      ],
      [
        "/admin/toolkits/add",
        { id: "kit", tools: "send_email not_a_tool", agents: HELPDESK },
        ['tools[1]: no tool "not_a_tool" in the registry; one of: '],
      ],
      [
        "/admin/approvers/add",
        { toolkit: "refunds", address: "operator@localhost" },
        ["address: cannot receive a confirm card: the outbound sends only to a plain address"],
      ],
      [
        "/admin/approvers/add",
        { toolkit: "refunds", address: HELPDESK },
        ["address: is an agent's address; agent mail can never confirm a plan (G14)"],
      ],
      [
        "/admin/outboundRules/add",
        { agent: HELPDESK, pattern: "*@Partner.example", effect: "allow" },
        ['pattern: must be lower-case: "*@partner.example"'],
      ],
    ];
    for (const [path, form, messages] of refused) {
      const r = await c.post(path, { ...form, _csrf: csrf });
      expect(r.status, path).toBe(400);
      const page = await text(r);
      for (const m of messages) expect(page, `${path} ${m}`).toContain(m);
    }
    expect(await s.stores.admin.exportDocument()).toEqual(before);
    // The check comes before the audit entry: a refused write leaves no trace of a change either.
    expect((await auditOf()).items.map((e) => e.at)).toEqual(auditBefore);
  });
});

async function auditOf() {
  const { AuditRepo } = await import("../../shared/store/audit-repo.ts");
  return new AuditRepo({ dynamo: s.stack.clients.dynamo, tables: s.stack.resources.tables }).list({
    limit: 5,
  });
}

describe("attachments", () => {
  it("are listed with type and size; only admins download them, as opaque bytes under a generated name", async () => {
    const boundary = "b0undary";
    const raw = Buffer.from(
      [
        "From: carol@customer.example",
        `To: ${HELPDESK}`,
        "Subject: With a file",
        `Message-ID: <att-${Date.now()}@customer.example>`,
        "MIME-Version: 1.0",
        `Content-Type: multipart/mixed; boundary="${boundary}"`,
        "",
        `--${boundary}`,
        "Content-Type: text/plain; charset=utf-8",
        "",
        "See the attached page.",
        `--${boundary}`,
        'Content-Type: text/html; name="<script>x</script>.html"',
        'Content-Disposition: attachment; filename="<script>x</script>.html"',
        "",
        "<script>alert(1)</script>",
        `--${boundary}--`,
        "",
      ].join("\r\n"),
    );
    const sent = await devSend({
      dir: s.dir,
      zoneFile: s.stack.zoneFile,
      from: "carol@customer.example",
      to: [HELPDESK],
      raw,
      port: s.stack.smtp.port,
    });
    if (!sent.ok) throw new Error(sent.reason);
    const msg = await waitFor("the stored message", async () => {
      const all = await s.stores.messages.listByAgent(HELPDESK, { limit: 20 });
      return all.find((m) => m.subject === "With a file");
    });
    const att = msg.attachments[0];
    expect(att).toBeDefined();
    const admin = new ConsoleClient(s.console.url);
    await admin.signIn(s.console.link());
    const page = await (
      await admin.get(`/agents/${encodeURIComponent(HELPDESK)}/threads/${encodeURIComponent(msg.threadId)}`)
    ).text();
    expect(page).toContain("&lt;script&gt;x&lt;/script&gt;.html");
    expect(page).not.toContain("<script>x</script>");
    const href = `/attachments/${encodeURIComponent(HELPDESK)}/${encodeURIComponent(msg.id)}/${att?.id}`;
    expect(page).toContain(href);
    const dl = await admin.get(href);
    expect(dl.status).toBe(200);
    expect(dl.headers.get("content-type")).toBe("application/octet-stream");
    expect(dl.headers.get("content-disposition")).toBe(`attachment; filename="attachment-${att?.id}.bin"`);
    expect(await dl.text()).toContain("<script>alert(1)</script>");
    const viewer = new ConsoleClient(s.console.url);
    await viewer.signIn(s.console.link({ email: "viewer@operators.example", groups: ["viewers"] }));
    expect((await viewer.get(href)).status).toBe(403);
    expect(await (await viewer.get(href.replace("/attachments/", "/agents/"))).text()).not.toContain(
      "<script>",
    );
  });
});
