import type { AdminCatalog } from "../../shared/admin/index.ts";
import { checkAdminWrite } from "../../shared/admin/index.ts";
import { printable } from "../../shared/mail/index.ts";
import {
  type InputNames,
  type ListedTool,
  listServerTools,
  type McpServerItem,
  mcpConnector,
  mcpSecretLookup,
  mcpServerFromInput,
  mcpToolClass,
  PIN_PREDATES_COVERAGE_TEXT,
  pinTools,
  REVIEW_STATE_TEXT,
  reviewStates,
  type ToolChoice,
} from "../../shared/mcp/index.ts";
import type { HostResolver } from "../../shared/net/index.ts";
import type { SecretSource } from "../../shared/secrets/index.ts";
import type { AdminRepo } from "../../shared/store/index.ts";
import { CommandFailure, UsageError } from "../errors.ts";
import { type AdminIo, json, list, table } from "./admin-io.ts";

/**
 * `postern mcp ...` as plain functions over an AdminRepo (commander wiring in mcp.ts). Registering and reviewing
 * list the server's tools now; what the operator chooses is pinned by hash (docs/mcp.md). Secrets are read to
 * connect and never printed.
 */

export interface McpAddArgs {
  url?: string;
  command?: string;
  arg?: string[];
  bearerSecret?: string;
  oauthTokenUrl?: string;
  oauthClientId?: string;
  oauthSecret?: string;
  oauthScope?: string;
  timeoutMs?: string;
  maxCalls?: string;
  dataClasses?: string;
  recordContent?: boolean;
  tools?: string;
  replace?: boolean;
}

/** A usage message names the flag to fix. */
const FLAG_NAMES: InputNames = {
  url: "--url",
  command: "--command",
  bearerSecret: "--bearer-secret",
  oauthTokenUrl: "--oauth-token-url",
  oauthClientId: "--oauth-client-id",
  oauthSecret: "--oauth-secret",
};

/** How the CLI reaches servers: the target decides (AWS: public hosts only, no stdio; local: both allowed). */
export interface McpReach {
  readonly aws: boolean;
  readonly resolve: HostResolver;
  readonly secrets: SecretSource;
}

/** `name=class`, optionally `:exposed_as` and `@principal_argument`, comma-separated. */
export function parseToolChoices(spec: string): ToolChoice[] {
  return list(spec).map((entry) => {
    const m = /^([^=]+)=([a-z]+)(?::([a-z][a-z0-9_]{0,63}))?(?:@([A-Za-z_][A-Za-z0-9_-]{0,127}))?$/.exec(
      entry,
    );
    const cls = mcpToolClass.safeParse(m?.[2]);
    if (!m || !cls.success)
      throw new UsageError(
        `--tools ${JSON.stringify(entry)}: write name=read|act|restricted (optionally :exposed_name, @principal_arg)`,
      );
    return {
      name: (m[1] as string).trim(),
      class: cls.data,
      ...(m[3] ? { exposedAs: m[3] } : {}),
      ...(m[4] ? { principalArgument: m[4] } : {}),
    };
  });
}

function itemOf(id: string, o: McpAddArgs, reach: McpReach): McpServerItem {
  // A stdio server is a child process of the function: there is no such process in Lambda.
  if (o.command && !o.url && reach.aws)
    throw new CommandFailure(
      "stdio servers (--command) run only in the local stack; register a --url for AWS",
    );
  const r = mcpServerFromInput(
    id,
    {
      url: o.url,
      command: o.command,
      args: o.arg,
      bearerSecret: o.bearerSecret,
      oauthTokenUrl: o.oauthTokenUrl,
      oauthClientId: o.oauthClientId,
      oauthSecret: o.oauthSecret,
      oauthScope: o.oauthScope,
      timeoutMs: o.timeoutMs ? Number(o.timeoutMs) : undefined,
      maxCallsPerRun: o.maxCalls ? Number(o.maxCalls) : undefined,
      dataClasses: o.dataClasses ? list(o.dataClasses) : undefined,
      recordContent: o.recordContent,
    },
    FLAG_NAMES,
  );
  if (r.ok) return r.item;
  if (r.reason === "usage") throw new UsageError(r.detail);
  throw new CommandFailure(`server ${id} is invalid:\n${r.detail.replace(/^/gm, "  ")}`);
}

async function listTools(server: McpServerItem, reach: McpReach): Promise<readonly ListedTool[]> {
  const r = await listServerTools(
    mcpConnector({
      resolve: reach.resolve,
      secret: mcpSecretLookup(reach.secrets),
      ...(reach.aws ? {} : { local: { allowStdio: true, allowLoopback: true } }),
    }),
    server,
  );
  if (!r.ok) throw new CommandFailure(r.detail);
  return r.tools;
}

/**
 * A server's words on the operator's terminal, through `printable` as all outside text is (G8's rules): control
 * characters (escape sequences that could rewrite the screen or hide a line) and bidi controls become U+FFFD,
 * invisible ones go; each line indented, the block cut at the pin's own bound.
 */
function shown(text: string): string {
  return printable(text, { multiline: true, max: 8_000 })
    .split("\n")
    .map((l) => `      ${l}`)
    .join("\n");
}

/** A server-chosen name on one line. */
const named = (text: string) => printable(text, { max: 128 });

/** The review view: every listed tool with its state against the pins, the server's claims shown as claims. */
/**
 * The server's tools against their pins. A reviewed tool whose definition is unchanged is one line: its text was
 * read at review and is exactly what was pinned, so printing it again only buries what did change (a rug pull, a
 * new tool) among pages of the same descriptions. `all` prints every tool in full.
 */
export function review(
  io: AdminIo,
  server: McpServerItem,
  listed: readonly ListedTool[],
  opts: { readonly all?: boolean } = {},
): void {
  const { rows, gone } = reviewStates(listed, server.tools);
  const unchanged = rows.filter((r) => r.state === "reviewed").length;
  for (const { tool: t, state, pin, pinPredatesCoverage } of rows) {
    io.out(
      `  ${named(t.name)}: ${REVIEW_STATE_TEXT[state]}${pin ? `, class ${pin.class}, offered as ${pin.exposedAs}` : ""}\n`,
    );
    if (pinPredatesCoverage) io.out(`    ${PIN_PREDATES_COVERAGE_TEXT}\n`);
    if (state === "reviewed" && !opts.all) continue;
    if (pin && state === "changed" && pin.description !== (t.description ?? ""))
      io.out(`    reviewed description:\n${shown(pin.description)}\n`);
    if (t.title !== undefined) io.out(`    title (the server's words, untrusted):\n${shown(t.title)}\n`);
    io.out(`    description (the server's words, untrusted):\n${shown(t.description ?? "")}\n`);
    io.out(`    input schema:\n${shown(JSON.stringify(t.inputSchema))}\n`);
    if (t.outputSchema !== undefined)
      io.out(`    output schema:\n${shown(JSON.stringify(t.outputSchema))}\n`);
    if (t.annotations)
      io.out(`    annotations (claims; no gate reads them):\n${shown(JSON.stringify(t.annotations))}\n`);
  }
  for (const p of gone) io.out(`  ${named(p.name)}: ${REVIEW_STATE_TEXT.gone}\n`);
  const changed = rows.filter((r) => r.state === "changed").length;
  const fresh = rows.filter((r) => r.state === "unreviewed").length;
  io.out(
    `${changed} changed, ${fresh} not reviewed, ${gone.length} gone, ${unchanged} unchanged` +
      `${unchanged > 0 && !opts.all ? " (shown in full with --all)" : ""}\n`,
  );
}

async function write(repo: AdminRepo, catalog: AdminCatalog, item: McpServerItem): Promise<void> {
  const r = await checkAdminWrite(repo, { mcpServers: [item] }, { catalog });
  if (!r.ok)
    throw new CommandFailure(
      `server ${item.id} not written:\n${r.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}`,
    );
  const put = await repo.putMcpServer(item);
  if (!put.ok) throw new CommandFailure(`server ${item.id} not written (${put.reason})`);
}

function pinned(server: McpServerItem, listed: readonly ListedTool[], spec: string): McpServerItem {
  const pins = pinTools(server.id, listed, parseToolChoices(spec), new Date());
  if (!pins.ok) throw new CommandFailure(pins.detail);
  return { ...server, tools: [...pins.pins] };
}

/** `postern mcp add <id>`. */
export async function mcpAdd(
  repo: AdminRepo,
  io: AdminIo,
  id: string,
  o: McpAddArgs,
  catalog: AdminCatalog,
  reach: McpReach,
): Promise<void> {
  const existing = (await repo.listMcpServers()).find((s) => s.id === id);
  if (existing && !o.replace)
    throw new CommandFailure(`server ${id} exists (--replace, or mcp review ${id})`);
  const base = itemOf(id, o, reach);
  const listed = await listTools(base, reach);
  const item = o.tools ? pinned(base, listed, o.tools) : base;
  await write(repo, catalog, item);
  io.out(`server ${id}: ${listed.length} tools listed, ${item.tools.length} reviewed and offered\n`);
  review(io, item, listed);
  if (item.tools.length === 0)
    io.out(`nothing is offered until you choose: postern mcp review ${id} --tools name=read,...\n`);
  io.out("grant them to agents by name in a toolkit (postern toolkits add --tools ...)\n");
}

/** `postern mcp review <id>`: show the live tools against the pins; with --tools, pin that set instead. */
export async function mcpReview(
  repo: AdminRepo,
  io: AdminIo,
  id: string,
  o: { tools?: string; all?: boolean },
  catalog: AdminCatalog,
  reach: McpReach,
): Promise<void> {
  const server = (await repo.listMcpServers()).find((s) => s.id === id);
  if (!server) throw new CommandFailure(`no MCP server ${id}`);
  const listed = await listTools(server, reach);
  const all = o.all === true;
  if (!o.tools) {
    io.out(`server ${id}:\n`);
    review(io, server, listed, { all });
    return;
  }
  const item = pinned(server, listed, o.tools);
  await write(repo, catalog, item);
  io.out(`server ${id}: ${item.tools.length} tools reviewed and pinned\n`);
  review(io, item, listed, { all });
}

/** `postern mcp list`: servers and their reviewed tools; never a secret (only how it authenticates). */
export async function mcpList(repo: AdminRepo, io: AdminIo, asJson: boolean): Promise<void> {
  const servers = await repo.listMcpServers();
  const rows = servers.map((s) => ({
    id: s.id,
    transport: s.transport,
    where: s.transport === "http" ? (s.url ?? "") : [s.command, ...s.args].join(" "),
    auth: s.auth.kind,
    enabled: s.enabled,
    tools: s.tools.map((t) => ({
      name: t.name,
      exposedAs: t.exposedAs,
      class: t.class,
      reviewedAt: t.reviewedAt,
    })),
  }));
  if (asJson) {
    io.out(json(rows));
    return;
  }
  io.out(
    table(
      ["SERVER", "TRANSPORT", "WHERE", "AUTH", "TOOL", "CLASS", "OFFERED AS", "REVIEWED"],
      rows.flatMap((r) =>
        (r.tools.length > 0 ? r.tools : [null]).map((t) => [
          r.id,
          r.transport,
          r.where,
          r.auth,
          t?.name ?? "(none reviewed)",
          t?.class ?? "",
          t?.exposedAs ?? "",
          t?.reviewedAt ?? "",
        ]),
      ),
    ),
  );
}

/** `postern mcp remove <id>`: its tools are offered nowhere from the next delivery on. */
export async function mcpRemove(repo: AdminRepo, io: AdminIo, id: string): Promise<void> {
  if (!(await repo.deleteMcpServer(id))) throw new CommandFailure(`no MCP server ${id}`);
  io.out(`removed MCP server ${id}; toolkits that name its tools now grant nothing by those names\n`);
}
