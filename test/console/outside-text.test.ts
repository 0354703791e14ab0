// Issue 31 item 3: every word the operator reads is true. Outside text (a sender's, a model's, an MCP server's)
// reaches a terminal or a page only through printable(): one table feeds each CLI command and console page a
// record full of escapes (OSC title `ESC]0;…BEL`, `ESC[2J`, the 8-bit CSI U+009B, a bidi override, isolates,
// zero-width) and asserts that none of them reaches stdout or the HTML raw, while the record itself is shown.

import { writeFileSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import MailComposer from "nodemailer/lib/mail-composer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../cli/commands/admin.ts";
import { runCheck } from "../../cli/commands/check-actions.ts";
import { runsFailures, runsList, runsShow } from "../../cli/commands/runs-actions.ts";
import { devSend } from "../../cli/local/dev-send.ts";
import { FAILURE_EVENT } from "../../shared/ports/failures.ts";
import type { RunRecord } from "../../shared/ports/runs.ts";
import { FailureLog } from "../../shared/store/failure-log.ts";
import { RunEventRepo } from "../../shared/store/run-event-repo.ts";
import { testCatalog } from "../helpers/admin-catalog.ts";
import { answerOverHttp } from "../helpers/mcp-servers/answer-over-http.ts";
import { waitFor } from "../helpers/pipeline-stack.ts";
import { ConsoleClient, type ConsoleStack, HELPDESK, startConsoleStack, stopAfterAll } from "./harness.ts";

/** Outside text at its worst, with a visible tag so a test can see the record was shown at all. */
const hostile = (tag: string) =>
  `\u001b]0;owned\u0007\u001b[2J\u009b31m${tag}\u202eexe.txt\u202c\u2066x\u2069\u200b\u00adend\u0085next`;
/** What must never reach a terminal or a page raw: C0 but LF (ESC, BEL), DEL and C1, bidi controls, zero-width. */
const RAW =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad]/u;

let s: ConsoleStack;
let admin: ConsoleClient;
let run: RunRecord;
let sesMessageId = "";
let adminFile = "";
let mcp: { url: string; close(): Promise<void> };

/** An MCP server whose every word is hostile: the name, the title, the description, the schemas. */
async function startEscapeServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http: HttpServer = createServer(async (req, res) => {
    const server = new Server({ name: "esc", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: hostile("tool-name"),
          title: hostile("tool-title"),
          description: hostile("tool-description"),
          inputSchema: { type: "object", properties: { [hostile("prop")]: { type: "string" } } },
          outputSchema: { type: "object", description: hostile("output") },
        },
      ],
    }));
    await answerOverHttp(server, req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((r) => http.close(() => r())),
  };
}

beforeAll(async () => {
  s = await startConsoleStack();
  admin = new ConsoleClient(s.console.url);
  await admin.signIn(s.console.link());
  mcp = await startEscapeServer();
  const since = new Date().toISOString();
  // A sender's words: display name, subject, body, an attachment name.
  const raw = await new MailComposer({
    from: { name: hostile("display-name"), address: "carol@customer.example" },
    to: HELPDESK,
    subject: hostile("subject"),
    text: hostile("body"),
    attachments: [{ filename: `${hostile("file")}.txt`, content: "x" }],
  })
    .compile()
    .build();
  const sent = await devSend({
    dir: s.dir,
    zoneFile: s.stack.zoneFile,
    from: "carol@customer.example",
    to: [HELPDESK],
    raw,
    port: s.stack.smtp.port,
  });
  if (!sent.ok) throw new Error(sent.reason);
  sesMessageId = sent.sesMessageId ?? "";
  // Refused mail with the same words (the refusals page).
  await devSend({
    dir: s.dir,
    zoneFile: s.stack.zoneFile,
    from: "eve@customer.example",
    to: ["nobody@agents.example.net"],
    subject: hostile("refused-subject"),
    body: hostile("refused-body"),
    port: s.stack.smtp.port,
  });
  run = await waitFor("the hostile mail's run", async () =>
    (await s.stores.runs.listRecent(20)).find(
      (r) => r.agent === HELPDESK && r.state !== "running" && r.createdAt >= since,
    ),
  );
  // Rows as an older release stored them, server words raw: a failure feed row and trace events.
  const deps = { dynamo: s.stack.clients.dynamo, tables: s.stack.resources.tables };
  await new FailureLog(deps).record(
    {
      class: "mcp-unavailable",
      reason: "mcp-call-failed",
      detail: hostile("failure-detail"),
      agent: HELPDESK,
      runId: run.runId,
    },
    new Date(),
  );
  const events = new RunEventRepo(deps);
  const at = new Date().toISOString();
  await events.append(run.runId, {
    type: FAILURE_EVENT,
    at,
    round: 1,
    data: { class: "mcp-unavailable", reason: "mcp-call-failed", detail: hostile("trace-failure") },
  });
  await events.append(run.runId, {
    type: "mcp-unreviewed",
    at,
    round: 1,
    data: { server: "esc", tools: [hostile("trace-name")] },
  });
  // A registered server whose live tools are all hostile; `mcp add` lists them for review.
  const added = await cli("mcp", "add", "esc", "--url", mcp.url);
  expect(added.code, added.err).toBe(0);
  adminFile = join(s.dir, "admin-export.json");
  writeFileSync(adminFile, JSON.stringify(await s.stores.admin.exportDocument()));
}, 120_000);
stopAfterAll(() => s);
afterAll(async () => {
  await mcp?.close();
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runAdminCommand(argv, {
    catalog: testCatalog(),
    io: {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    },
    open: async () => ({
      kind: "local-running",
      resources: s.stack.resources,
      clients: s.stack.clients,
      close: async () => {},
    }),
  });
  return { code, out, err };
}

type Io = { out(t: string): void; err(t: string): void };
async function captured(command: (io: Io) => Promise<number>): Promise<string> {
  let text = "";
  const code = await command({
    out: (t) => {
      text += t;
    },
    err: (t) => {
      text += t;
    },
  });
  expect(code, text).toBe(0);
  return text;
}

const flags = () => ({ dataDir: join(s.dir, "data") });

/** Each command, and the tags of the hostile records it must show (so the absence of escapes is not vacuous). */
const COMMANDS: readonly (readonly [string, () => Promise<string>, readonly string[]])[] = [
  ["runs list", () => captured((io) => runsList(flags(), io)), []],
  ["runs list --json", () => captured((io) => runsList({ ...flags(), json: true }, io)), []],
  ["runs show", () => captured((io) => runsShow(run.runId, flags(), io)), ["trace-failure", "trace-name"]],
  [
    "runs show --json",
    () => captured((io) => runsShow(run.runId, { ...flags(), json: true }, io)),
    ["trace-failure"],
  ],
  ["runs failures", () => captured((io) => runsFailures(flags(), io)), ["failure-detail"]],
  [
    "runs failures --json",
    () => captured((io) => runsFailures({ ...flags(), json: true }, io)),
    ["failure-detail"],
  ],
  [
    "check --show",
    () =>
      captured((io) =>
        runCheck(
          sesMessageId,
          {
            admin: adminFile,
            rcpt: HELPDESK,
            dir: s.dir,
            config: join(s.dir, "postern.config.json"),
            dns: s.stack.zoneFile,
            show: true,
          },
          io,
        ),
      ),
    ["subject", "body"],
  ],
  ["mcp list", async () => (await cli("mcp", "list")).out, []],
  ["mcp list --json", async () => (await cli("mcp", "list", "--json")).out, []],
  [
    "mcp review",
    async () => {
      const r = await cli("mcp", "review", "esc");
      return r.out + r.err;
    },
    ["tool-name", "tool-title", "tool-description", "output"],
  ],
];

describe("no raw escape reaches the terminal", () => {
  it.each(COMMANDS)("postern %s", async (_name, run_, tags) => {
    const out = await run_();
    expect(out.length).toBeGreaterThan(0);
    const at = out.search(RAW);
    expect(at, `raw ${JSON.stringify(out.slice(Math.max(0, at - 40), at + 40))}`).toBe(-1);
    for (const tag of tags) expect(out).toContain(tag);
  });
});

/** Each page, and the tags it must show. */
const PAGES: readonly (readonly [string, () => string, readonly string[]])[] = [
  ["home", () => "/", []],
  ["the run", () => `/runs/${encodeURIComponent(run.runId)}`, ["body", "trace-failure", "trace-name"]],
  ["failures", () => "/failures", ["failure-detail"]],
  ["refusals", () => "/refusals", []],
  ["the agent's threads", () => `/agents/${encodeURIComponent(HELPDESK)}/threads`, ["subject"]],
  ["the agent's runs", () => `/agents/${encodeURIComponent(HELPDESK)}/runs`, []],
  ["MCP review", () => "/mcp/esc/review", ["tool-name", "tool-title", "tool-description", "output"]],
  ["admin", () => "/admin", []],
];

describe("no raw escape, bidi override or invisible character reaches a page", () => {
  it.each(PAGES)("%s", async (_name, path, tags) => {
    const r = await admin.get(path());
    expect(r.status).toBe(200);
    const page = await r.text();
    const at = page.search(RAW);
    expect(at, `raw ${JSON.stringify(page.slice(Math.max(0, at - 40), at + 40))}`).toBe(-1);
    for (const tag of tags) expect(page).toContain(tag);
  });

  it("the thread page shows the sender's words without their controls", async () => {
    const threads = await (await admin.get(`/agents/${encodeURIComponent(HELPDESK)}/threads`)).text();
    const link = /href="(\/agents\/[^"]+\/threads\/[^"]+)"/.exec(threads)?.[1];
    expect(link).toBeDefined();
    const page = await (await admin.get((link ?? "").replaceAll("&amp;", "&"))).text();
    expect(page.search(RAW)).toBe(-1);
    expect(page).toContain("body");
  });
});
