import { readFileSync, writeFileSync } from "node:fs";
import type { AdminCatalog, AdminIssue, AdminList, AdminWriteResult } from "../../shared/admin/index.ts";
import { checkAdminWrite } from "../../shared/admin/index.ts";
import type { AdminRepo } from "../../shared/store/index.ts";
import { CommandFailure } from "../errors.ts";
import { type AdminIo, json, list, table } from "./admin-io.ts";

/**
 * The admin commands as plain functions over an AdminRepo: commander wiring lives in admin.ts, so tests and
 * other callers can run them without a process. Expected failures throw CommandFailure (exit 1).
 */

const lower = (s: string) => s.trim().toLowerCase();

/**
 * Addresses and patterns typed on the command line are lower-cased (routing keys are), and the command says so when
 * that changed what was typed: the console and `admin import` refuse upper case instead, naming the lower-case form.
 */
function lowered(io: AdminIo, flag: string, value: string): string {
  const out = lower(value);
  if (out !== value.trim()) io.err(`note: ${flag} lower-cased to ${JSON.stringify(out)}\n`);
  return out;
}

function failIssues(what: string, issues: readonly AdminIssue[]): never {
  throw new CommandFailure(`${what}:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}`);
}

/** The command-line flag that set each item field, so a refusal names what to change on the command line. */
const FLAGS: Record<string, string> = {
  address: "--address",
  name: "--name",
  model: "--model",
  instructions: "--instructions",
  agent: "--agent",
  pattern: "--pattern",
  effect: "--effect",
  id: "--id",
  tools: "--tools",
  agents: "--agents",
  archiveScope: "--archive-scope",
  egressHosts: "--egress-hosts",
  toolkit: "--toolkit",
};

/** `agents[0].model` → `--model`; `toolkits[0].tools[2]` → `--tools`; a field no flag sets keeps its name. */
function flagOf(list: AdminList, path: string): string {
  const field = path.startsWith(`${list}[0].`) ? path.slice(`${list}[0].`.length) : path;
  const name = field.replace(/[[.].*$/, "");
  return FLAGS[name] ?? field;
}

/**
 * The write check every admin write makes (shared/admin/sync.ts `checkAdminWrite`, as `admin import` and the
 * console do), on the one item this command writes. Nothing is written when it refuses.
 */
async function checked(
  repo: AdminRepo,
  catalog: AdminCatalog,
  list: AdminList,
  item: Record<string, unknown>,
  what: string,
): Promise<void> {
  const r = await checkAdminWrite(repo, { [list]: [item] }, { catalog });
  if (!r.ok)
    failIssues(
      `${what} not written`,
      r.issues.map((i) => ({ ...i, path: flagOf(list, i.path) })),
    );
}

function expectWritten<T>(r: AdminWriteResult<T>, what: string, duplicateHint: string): T {
  if (r.ok) return r.item;
  if (r.reason === "duplicate") throw new CommandFailure(`${what} already exists (${duplicateHint})`);
  return failIssues(`${what} is invalid`, r.issues);
}

// ---- admin import / export

export async function adminImport(
  repo: AdminRepo,
  io: AdminIo,
  file: string,
  replace: boolean,
  catalog: AdminCatalog,
): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new CommandFailure(`${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new CommandFailure(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const r = await repo.importDocument(doc, { replace, catalog });
  if (!r.ok) failIssues(`${file}: nothing imported, the document is invalid`, r.issues);
  io.out(
    `imported ${r.written} item(s)${replace ? `, deleted ${r.deleted} item(s) absent from ${file}` : ""}\n`,
  );
}

export async function adminExport(repo: AdminRepo, io: AdminIo, out?: string): Promise<void> {
  const doc = await repo.exportDocument();
  if (out) {
    writeFileSync(out, json(doc));
    io.err(`exported to ${out}\n`);
  } else io.out(json(doc));
}

// ---- agents

export async function agentsList(repo: AdminRepo, io: AdminIo, asJson: boolean): Promise<void> {
  const [agents, toolkits] = await Promise.all([repo.listAgents(), repo.listToolkits()]);
  if (asJson) return io.out(json(agents));
  const kits = (a: string) =>
    toolkits
      .filter((t) => t.agents.includes(a))
      .map((t) => t.id)
      .join(",");
  io.out(
    table(
      ["ADDRESS", "NAME", "MODEL", "ENABLED", "TOOLKITS"],
      agents.map((a) => [a.address, a.name, a.model, String(a.enabled), kits(a.address)]),
    ),
  );
}

export interface AgentAddArgs {
  readonly address: string;
  readonly name: string;
  readonly model: string;
  readonly instructions?: string;
  readonly replace?: boolean;
}

export async function agentsAdd(
  repo: AdminRepo,
  io: AdminIo,
  a: AgentAddArgs,
  catalog: AdminCatalog,
): Promise<void> {
  const address = lowered(io, "--address", a.address);
  const given = {
    address,
    name: a.name,
    model: a.model,
    ...(a.instructions !== undefined ? { instructions: a.instructions } : {}),
  };
  // --replace keeps the fields this command cannot set (caps, flags) instead of resetting them to defaults.
  const base = a.replace ? ((await repo.rawGet("agents", { address })) ?? {}) : {};
  await checked(repo, catalog, "agents", { ...base, ...given }, `agent ${address}`);
  const r = await repo.putAgent({ ...base, ...given }, { ifAbsent: !a.replace });
  const item = expectWritten(r, `agent ${address}`, "use --replace to overwrite it");
  const fresh = r.ok && r.created;
  io.out(
    `${fresh ? "added" : "updated"} agent ${item.address}${fresh ? " (attached to toolkit default)" : ""}\n`,
  );
}

export async function agentsRemove(repo: AdminRepo, io: AdminIo, address: string): Promise<void> {
  const a = lower(address);
  if (!(await repo.deleteAgent(a, { cascade: true }))) throw new CommandFailure(`no agent ${a}`);
  io.out(`removed agent ${a} (with its access and outbound rules and toolkit memberships)\n`);
}

async function requireAgent(repo: AdminRepo, address: string): Promise<void> {
  if (!(await repo.getAgent(address)))
    throw new CommandFailure(`no agent ${address} (add it with: agents add)`);
}

// ---- access rules

export async function rulesList(repo: AdminRepo, io: AdminIo, agent: string | undefined, asJson: boolean) {
  const rules = await repo.listAccessRules(agent ? lower(agent) : undefined);
  if (asJson) return io.out(json(rules));
  io.out(
    table(
      ["AGENT", "EFFECT", "PATTERN", "NOTE"],
      rules.map((r) => [r.agent, r.effect, r.pattern, r.failClosedFor ? "fail-closed: an invalid rule" : ""]),
    ),
  );
}

export interface RuleArgs {
  readonly agent: string;
  readonly pattern: string;
  readonly effect: string;
}

export async function rulesAdd(
  repo: AdminRepo,
  io: AdminIo,
  a: RuleArgs,
  catalog: AdminCatalog,
): Promise<void> {
  const agent = lowered(io, "--agent", a.agent);
  await requireAgent(repo, agent);
  const rule = { agent, pattern: lowered(io, "--pattern", a.pattern), effect: a.effect };
  await checked(repo, catalog, "accessRules", rule, "rule");
  const r = await repo.putAccessRule(rule);
  const item = expectWritten(r, "rule", "");
  io.out(`${r.ok && r.created ? "added" : "kept"} ${item.effect} ${item.pattern} for ${item.agent}\n`);
}

export async function rulesRemove(repo: AdminRepo, io: AdminIo, a: RuleArgs): Promise<void> {
  const agent = lower(a.agent);
  const pattern = lower(a.pattern);
  if (!(await repo.deleteAccessRule(agent, a.effect, pattern)))
    throw new CommandFailure(`no ${a.effect} rule ${pattern} for ${agent}`);
  io.out(`removed ${a.effect} ${pattern} for ${agent}\n`);
}

// ---- outbound rules

export async function outboundRulesList(
  repo: AdminRepo,
  io: AdminIo,
  agent: string | undefined,
  asJson: boolean,
) {
  const rules = await repo.listOutboundRules(agent ? lower(agent) : undefined);
  if (asJson) return io.out(json(rules));
  io.out(
    table(
      ["AGENT", "EFFECT", "PATTERN", "NOTE"],
      rules.map((r) => [r.agent, r.effect, r.pattern, r.failClosedFor ? "fail-closed: an invalid rule" : ""]),
    ),
  );
}

export async function outboundRulesAdd(
  repo: AdminRepo,
  io: AdminIo,
  a: RuleArgs,
  catalog: AdminCatalog,
): Promise<void> {
  const agent = lowered(io, "--agent", a.agent);
  await requireAgent(repo, agent);
  const rule = { agent, pattern: lowered(io, "--pattern", a.pattern), effect: a.effect };
  await checked(repo, catalog, "outboundRules", rule, "outbound rule");
  const r = await repo.putOutboundRule(rule);
  const item = expectWritten(r, "outbound rule", "");
  io.out(
    `${r.ok && r.created ? "added" : "kept"} outbound ${item.effect} ${item.pattern} for ${item.agent}\n`,
  );
}

export async function outboundRulesRemove(repo: AdminRepo, io: AdminIo, a: RuleArgs): Promise<void> {
  const agent = lower(a.agent);
  const pattern = lower(a.pattern);
  if (!(await repo.deleteOutboundRule(agent, a.effect, pattern)))
    throw new CommandFailure(`no outbound ${a.effect} rule ${pattern} for ${agent}`);
  io.out(`removed outbound ${a.effect} ${pattern} for ${agent}\n`);
}

// ---- toolkits

export async function toolkitsList(repo: AdminRepo, io: AdminIo, asJson: boolean): Promise<void> {
  const kits = await repo.listToolkits();
  if (asJson) return io.out(json(kits));
  io.out(
    table(
      ["ID", "TOOLS", "AGENTS", "SCHEDULED", "SYSTEM", "ARCHIVE", "EGRESS HOSTS"],
      kits.map((t) => [
        t.id,
        t.tools.join(","),
        t.agents.join(","),
        String(t.allowScheduled),
        String(t.system),
        t.archiveScope,
        t.egressHosts.join(",") || "-",
      ]),
    ),
  );
}

export interface ToolkitAddArgs {
  readonly id: string;
  readonly tools: string;
  readonly agents?: string;
  readonly name?: string;
  readonly allowScheduled?: boolean;
  readonly archiveScope?: string;
  readonly egressHosts?: string;
  readonly replace?: boolean;
}

export async function toolkitsAdd(
  repo: AdminRepo,
  io: AdminIo,
  a: ToolkitAddArgs,
  catalog: AdminCatalog,
): Promise<void> {
  const agents = list(a.agents).map((x) => lowered(io, "--agents", x));
  for (const agent of agents) await requireAgent(repo, agent);
  const id = lower(a.id);
  const base = a.replace ? ((await repo.rawGet("toolkits", { id })) ?? {}) : {};
  const toolkit = {
    ...base,
    id,
    tools: list(a.tools),
    agents,
    allowScheduled: a.allowScheduled ?? false,
    ...(a.name !== undefined ? { name: a.name } : {}),
    // Validated by the toolkit schema like every other field: a wrong scope or host is refused with the fix.
    ...(a.archiveScope !== undefined ? { archiveScope: a.archiveScope } : {}),
    ...(a.egressHosts !== undefined
      ? { egressHosts: list(a.egressHosts).map((h) => lowered(io, "--egress-hosts", h)) }
      : {}),
  };
  await checked(repo, catalog, "toolkits", toolkit, `toolkit ${id}`);
  const r = await repo.putToolkit(toolkit, { ifAbsent: !a.replace });
  const item = expectWritten(r, `toolkit ${id}`, "use --replace to overwrite it");
  io.out(
    `${r.ok && r.created ? "added" : "updated"} toolkit ${item.id}: ${item.tools.join(",") || "(no tools)"}\n`,
  );
}

export async function toolkitsRemove(repo: AdminRepo, io: AdminIo, id: string): Promise<void> {
  const t = lower(id);
  if (!(await repo.deleteToolkit(t, { cascade: true }))) throw new CommandFailure(`no toolkit ${t}`);
  io.out(`removed toolkit ${t} (with its approvers)\n`);
}

// ---- approvers

export async function approversList(
  repo: AdminRepo,
  io: AdminIo,
  toolkit: string | undefined,
  asJson: boolean,
) {
  const approvers = await repo.listApprovers(toolkit ? lower(toolkit) : undefined);
  if (asJson) return io.out(json(approvers));
  io.out(
    table(
      ["TOOLKIT", "ADDRESS"],
      approvers.map((a) => [a.toolkit, a.address]),
    ),
  );
}

export async function approversAdd(
  repo: AdminRepo,
  io: AdminIo,
  toolkit: string,
  address: string,
  catalog: AdminCatalog,
) {
  const t = lower(toolkit);
  if (!(await repo.getToolkit(t))) throw new CommandFailure(`no toolkit ${t} (add it with: toolkits add)`);
  const approver = { toolkit: t, address: lowered(io, "--address", address) };
  await checked(repo, catalog, "approvers", approver, `approver ${approver.address}`);
  const item = expectWritten(await repo.putApprover(approver), "approver", "");
  io.out(`added approver ${item.address} for toolkit ${item.toolkit}\n`);
}

export async function approversRemove(repo: AdminRepo, io: AdminIo, toolkit: string, address: string) {
  const t = lower(toolkit);
  const a = lower(address);
  if (!(await repo.deleteApprover(t, a))) throw new CommandFailure(`no approver ${a} for toolkit ${t}`);
  io.out(`removed approver ${a} for toolkit ${t}\n`);
}
