import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../cli/commands/check-actions.ts";
import { runsShow } from "../../cli/commands/runs-actions.ts";
import { devSend } from "../../cli/local/dev-send.ts";
import { GROUPS } from "../../console/auth/principal.ts";
import { waitFor } from "../helpers/pipeline-stack.ts";
import {
  APPROVER,
  ConsoleClient,
  type ConsoleStack,
  HELPDESK,
  SHOP,
  startConsoleStack,
  stopAfterAll,
} from "./harness.ts";

/**
 * The pages an operator lives in: the home feed, tool results in a timeline, who wrote each box, the plan page
 * after Apply, Remove that asks first, the raw mail of a refusal (admins only, never rendered), times in a zone.
 */
let s: ConsoleStack;
let admin: ConsoleClient;
beforeAll(async () => {
  s = await startConsoleStack();
  admin = new ConsoleClient(s.console.url);
  await admin.signIn(s.console.link());
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
  return sent;
}

const finishedRun = (agent: string, since: string) =>
  waitFor(`a finished run of ${agent}`, async () =>
    (await s.stores.runs.listRecent(20)).find(
      (r) => r.agent === agent && r.state !== "running" && r.createdAt >= since,
    ),
  );

describe("the home page", () => {
  it("lists recent activity across agents: accepted, refused, runs and sent mail, with zone and relative times", async () => {
    const since = new Date().toISOString();
    await mail(HELPDESK, "Feed subject SECRET-SUBJECT", "Hello");
    await mail("nobody@agents.example.net", "REFUSED-SUBJECT", "REFUSED-BODY", "eve@customer.example");
    await finishedRun(HELPDESK, since);
    const home = await waitFor("the feed", async () => {
      const page = await (await admin.get("/")).text();
      return page.includes("refused") && page.includes("mail sent to") ? page : undefined;
    });
    const kinds = [...home.matchAll(/data-kind="([a-z]+)"/g)].map((m) => m[1]);
    for (const k of ["accepted", "refused", "run", "sent"]) expect(kinds, k).toContain(k);
    expect(home).toContain("mail from carol@customer.example accepted");
    expect(home).toContain("mail to nobody@agents.example.net refused: unknown-recipient");
    // Engine-written lines only: no subject of accepted mail, nothing of refused mail (G4).
    expect(home).not.toContain("SECRET-SUBJECT");
    expect(home).not.toContain("REFUSED");
    expect(home).toMatch(
      /<time datetime="[^"]+Z" title="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [^<]+ <span class="ago">\((just now|\d+ min ago)\)<\/span><\/time>/,
    );
    expect(home).toContain("<h2>Agents</h2>");
  });

  it("shows times in the zone the operator picks, and refuses a zone that does not exist", async () => {
    const c = new ConsoleClient(s.console.url);
    await c.signIn(s.console.link());
    const csrf = await c.csrf("/settings");
    const saved = await c.post("/settings/time-zone", { _csrf: csrf, zone: "Pacific/Chatham" });
    expect(saved.status).toBe(303);
    const zone = /postern-tz=([^;]+)/.exec(saved.headers.get("set-cookie") ?? "")?.[1];
    expect(zone).toBe("Pacific%2FChatham");
    c.cookie = `${c.cookie}; postern-tz=${zone}`;
    const page = await (await c.get("/")).text();
    expect(page).toContain(">Pacific/Chatham</a>");
    expect(page).toMatch(/\d\d:\d\d:\d\d GMT\+1[23]:45/);
    expect((await c.post("/settings/time-zone", { _csrf: csrf, zone: "Mars/Olympus" })).status).toBe(400);
    // A cookie naming no zone is ignored (the console's default applies).
    c.cookie = c.cookie.replace(/postern-tz=[^;]+/, "postern-tz=%3Cscript%3E");
    const fallback = await (await c.get("/")).text();
    expect(fallback).not.toContain("script&gt;</a>");
  });
});

describe("a run's timeline", () => {
  it("shows each tool result as the model read it, and labels who wrote each box", async () => {
    const since = new Date().toISOString();
    await mail(HELPDESK, "Tool results", "Show me the result.");
    const run = await finishedRun(HELPDESK, since);
    const page = await (await admin.get(`/runs/${run.runId}`)).text();
    expect(page).toContain("<summary>result</summary>");
    expect(page).toContain("returned by the tool send_email, exactly as the model read it");
    expect(page).toContain("&quot;requestId&quot;");
    expect(page).toContain('class="untrusted-box by-model"');
    // The run ends when its reply is queued; the outbound records the sent reply a moment later.
    const thread = await waitFor("the agent's reply in the thread", async () => {
      const html = await (
        await admin.get(
          `/agents/${encodeURIComponent(HELPDESK)}/threads/${encodeURIComponent(run.threadId ?? "")}`,
        )
      ).text();
      return html.includes(`written by the agent ${HELPDESK}`) ? html : undefined;
    });
    expect(thread).toContain("written by the sender carol@customer.example: untrusted");
    expect(thread).toContain(`written by the agent ${HELPDESK}`);
  });

  it("labels the operator's own mail as theirs, not a stranger's", async () => {
    const since = new Date().toISOString();
    await mail(HELPDESK, "From the operator", "Operator here.", "admin@operators.example");
    const run = await finishedRun(HELPDESK, since);
    const thread = await (
      await admin.get(
        `/agents/${encodeURIComponent(HELPDESK)}/threads/${encodeURIComponent(run.threadId ?? "")}`,
      )
    ).text();
    expect(thread).toContain("written by you (admin@operators.example)");
    expect(thread).not.toContain("written by the sender admin@operators.example");
  });
});

describe("a plan after Apply", () => {
  it("shows the decision at once (no second Apply), then the applied state", async () => {
    const since = new Date().toISOString();
    await mail(SHOP, "Refund A-1002", "Order A-1002 arrived broken.");
    const run = await finishedRun(SHOP, since);
    await waitFor("a pending plan", async () =>
      (await s.stores.state.get(`plan#${run.runId}`, "plan"))?.state === "pending" ? true : undefined,
    );
    const approver = new ConsoleClient(s.console.url);
    await approver.signIn(s.console.link({ email: APPROVER, groups: [GROUPS.viewers] }));
    const csrf = await approver.csrf(`/plans/${run.runId}`);
    const applied = await approver.post(`/plans/${run.runId}/apply`, { _csrf: csrf });
    const after = await (await approver.get(applied.headers.get("location") ?? "")).text();
    // Either agent-step has not acted yet (the decision shows) or it has (applied): never Apply again.
    expect(after).toMatch(/being applied|<strong>applying<\/strong>|<strong>applied<\/strong>/);
    expect(after).not.toContain(">Apply</button>");
    await waitFor("the plan applied", async () =>
      (await s.stores.state.get(`plan#${run.runId}`, "plan"))?.state === "applied" ? true : undefined,
    );
    expect(await (await approver.get(`/plans/${run.runId}`)).text()).toContain(
      '<strong class="status s-applied">applied</strong>',
    );
  });
});

describe("Remove asks first", () => {
  it("the Remove button leads to a page naming what goes with the item; only its form removes", async () => {
    await s.stores.admin.putAgent({ address: `temp@agents.example.net`, name: "Temp", model: "reply" });
    await s.stores.admin.putAccessRule({
      agent: "temp@agents.example.net",
      pattern: "x@y.example",
      effect: "deny",
    });
    const adminPage = await (await admin.get("/admin")).text();
    expect(adminPage).toContain('method="get" action="/admin/agents/remove"');
    const confirm = await (await admin.get("/admin/agents/remove?address=temp%40agents.example.net")).text();
    expect(confirm).toContain("Remove the agent temp@agents.example.net?");
    expect(confirm).toContain("1 access rule");
    const csrf = await admin.csrf("/admin");
    // A bare POST (no confirmation) removes nothing.
    const bare = await admin.post("/admin/agents/delete", {
      _csrf: csrf,
      address: "temp@agents.example.net",
    });
    expect(bare.headers.get("location")).toContain("done=not-removed");
    expect(await s.stores.admin.getAgent("temp@agents.example.net")).not.toBeNull();
    const done = await admin.post("/admin/agents/delete", {
      _csrf: csrf,
      address: "temp@agents.example.net",
      confirm: "yes",
    });
    expect(done.headers.get("location")).toContain("done=removed");
    expect(await s.stores.admin.getAgent("temp@agents.example.net")).toBeNull();
    expect(await s.stores.admin.listAccessRules("temp@agents.example.net")).toEqual([]);
  });
});

describe("the raw mail behind a refusal", () => {
  it("downloads for admins only, as opaque bytes that no browser renders", async () => {
    const sent = await mail(
      "nobody@agents.example.net",
      "<script>RAW</script>",
      "<b>raw</b>",
      "eve@customer.example",
    );
    const id = sent.ok ? (sent.sesMessageId ?? "") : "";
    const page = await waitFor("the refusal listed", async () => {
      const p = await (await admin.get("/refusals")).text();
      return p.includes(`/raw/${id}`) ? p : undefined;
    });
    expect(page).not.toContain("RAW"); // G4: the list shows the id, never the mail
    const dl = await admin.get(`/raw/${id}`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get("content-type")).toBe("application/octet-stream");
    expect(dl.headers.get("content-disposition")).toBe(`attachment; filename="${id}.eml"`);
    expect(dl.headers.get("content-security-policy")).toContain("sandbox");
    expect(await dl.text()).toContain("<script>RAW</script>");
    const viewer = new ConsoleClient(s.console.url);
    await viewer.signIn(s.console.link({ email: "viewer@operators.example", groups: [GROUPS.viewers] }));
    expect((await viewer.get(`/raw/${id}`)).status).toBe(403);
    expect(await (await viewer.get("/refusals")).text()).not.toContain(`/raw/${id}`);
    for (const bad of ["..%2Fmail%2Fx", "a%2Fb", ".hidden"])
      expect((await admin.get(`/raw/${bad}`)).status, bad).toBe(404);
    // The id becomes a header's quoted filename: an object stored under a key no SES id can be (a quote and a
    // parameter of its own) is never served, so no request can write its own Content-Disposition parameters.
    const forged = "x\";filename*=UTF-8''evil.html;x=\"";
    await s.stack.clients.s3.send(
      new PutObjectCommand({ Bucket: s.stack.resources.bucket, Key: `inbound/${forged}`, Body: "<b>x</b>" }),
    );
    const refused = await admin.get(`/raw/${encodeURIComponent(forged)}`);
    expect(refused.status).toBe(404);
    expect(refused.headers.get("content-disposition")).toBeNull();
  });
});

describe("the mail behind a refusal, from the CLI", () => {
  const io = () => {
    const out: string[] = [];
    return { out, io: { out: (t: string) => out.push(t), err: (t: string) => out.push(t) } };
  };

  it("dev send saves what it sent; check takes the stored id; runs show names the raw mail", async () => {
    const sent = await mail("nobody@agents.example.net", "Why refused?", "Body", "eve@customer.example");
    const id = sent.sesMessageId ?? "";
    expect(sent.savedAs).toBe(join(s.dir, "sent", `${id}.eml`));
    expect(readFileSync(sent.savedAs)).toEqual(sent.raw);
    const admin = join(s.dir, "admin-export.json");
    writeFileSync(admin, JSON.stringify(await s.stores.admin.exportDocument()));
    const c = io();
    const args = {
      rcpt: "nobody@agents.example.net",
      dir: s.dir,
      config: join(s.dir, "postern.config.json"),
      dns: s.stack.zoneFile,
      admin,
    };
    expect(await runCheck(id, args, c.io)).toBe(0);
    expect(JSON.parse(c.out.join(""))).toMatchObject({ verdict: "refuse", reason: "unknown-recipient" });
    const missing = io();
    expect(await runCheck("no-such-id", args, missing.io)).toBe(2);
    expect(missing.out.join("")).toContain("no stored mail inbound/no-such-id");

    const since = new Date().toISOString();
    const ok = await mail(HELPDESK, "Raw please", "Hi");
    const run = await finishedRun(HELPDESK, since);
    const shown = io();
    expect(await runsShow(run.runId, { dataDir: join(s.dir, "data") }, shown.io)).toBe(0);
    expect(shown.out.join("")).toContain(
      `raw mail: inbound/${ok.sesMessageId}  (npx postern check ${ok.sesMessageId} --rcpt ${HELPDESK} --show)`,
    );
  });
});
