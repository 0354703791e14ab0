import { type Command, Option } from "commander";
import { FailureLog } from "../../shared/store/failure-log.ts";
import { MessageRepo } from "../../shared/store/message-repo.ts";
import { PlanStore } from "../../shared/store/plan-store.ts";
import { RunEventRepo } from "../../shared/store/run-event-repo.ts";
import { RunRepo } from "../../shared/store/run-repo.ts";
import { StateRepo } from "../../shared/store/state-repo.ts";
import { confirmToolPredicate } from "../../shared/trace/confirm-tools.ts";
import { defaultRegistry } from "../../tools/index.ts";
import { renderRunTree } from "../runs-tree.ts";
import { openTarget, type Target } from "../target.ts";
import { type AdminIo, json, processIo, table } from "./admin-io.ts";

interface Flags {
  target?: "local" | "aws";
  dataDir?: string;
  resources?: string;
  json?: boolean;
  limit?: string;
  days?: string;
}

async function withTarget(flags: Flags, io: AdminIo, body: (t: Target) => Promise<void>): Promise<number> {
  let target: Target | undefined;
  try {
    target = await openTarget({
      target: flags.target ?? (flags.resources ? "aws" : "local"),
      ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
      ...(flags.resources ? { resourcesFile: flags.resources } : {}),
    });
    await body(target);
    return 0;
  } catch (err) {
    io.err(`error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await target?.close();
  }
}

export async function runsList(flags: Flags, io: AdminIo = processIo): Promise<number> {
  return withTarget(flags, io, async (t) => {
    const runs = await new RunRepo({ dynamo: t.clients.dynamo, tables: t.resources.tables }).listRecent(
      Number(flags.limit ?? 20),
    );
    if (flags.json) return io.out(json(runs));
    io.out(
      table(
        ["RUN", "AGENT", "KIND", "STATE", "ROUND", "CREATED", "FAILURE"],
        runs.map((r) => [
          r.runId,
          r.agent,
          r.kind,
          `${r.state}${r.finishReason ? ` (${r.finishReason})` : ""}`,
          String(r.round),
          r.createdAt,
          // G19: the latest failure of the run, or of mail it caused (a refused reply, an unsent card).
          r.failure
            ? `${r.failure.class}: ${r.failure.reason}${(r.failureCount ?? 1) > 1 ? ` (+${(r.failureCount ?? 1) - 1})` : ""}`
            : "",
        ]),
      ),
    );
  });
}

export async function runsShow(runId: string, flags: Flags, io: AdminIo = processIo): Promise<number> {
  return withTarget(flags, io, async (t) => {
    const deps = { dynamo: t.clients.dynamo, tables: t.resources.tables };
    const run = await new RunRepo(deps).get(runId);
    if (!run) throw new Error(`no run ${runId}`);
    const events = await new RunEventRepo(deps).list(runId);
    // The run's plan names the calls that were proposals (G14): they read "proposed", not "ok".
    const plan = await new PlanStore({ ...deps, state: new StateRepo(deps) }).get(runId);
    const ctx = {
      proposedCallIds: new Set(plan?.ops.map((o) => o.callId) ?? []),
      isConfirmTool: confirmToolPredicate(defaultRegistry()),
    };
    // The mail that started the run, as stored: `postern check <id>` runs the gate on it again.
    const message = run.messageId ? await new MessageRepo(deps).get(run.agent, run.messageId) : null;
    const raw = message?.sesMessageId ? `inbound/${message.sesMessageId}` : null;
    if (flags.json) return io.out(json({ run, events, rawMail: raw }));
    io.out(renderRunTree(run, events, ctx));
    if (raw && message?.sesMessageId)
      io.out(`raw mail: ${raw}  (npx postern check ${message.sesMessageId} --rcpt ${run.agent} --show)\n`);
  });
}

/**
 * G19: every failure that must reach a person, newest first (the failure feed: a refused send, an unsent card or
 * notice, a failed run), including those that belong to no run (a refusal notice from verify).
 */
export async function runsFailures(flags: Flags, io: AdminIo = processIo): Promise<number> {
  return withTarget(flags, io, async (t) => {
    const items = await new FailureLog({ dynamo: t.clients.dynamo, tables: t.resources.tables }).listRecent({
      now: new Date(),
      days: Number(flags.days ?? 7),
      limit: Number(flags.limit ?? 50),
    });
    if (flags.json) return io.out(json(items));
    if (items.length === 0) return io.out(`no failures in the last ${flags.days ?? 7} day(s)\n`);
    io.out(
      table(
        ["AT", "CLASS", "REASON", "AGENT", "RUN", "REQUEST", "SENDER TOLD", "MESSAGE"],
        items.map((f) => [
          f.at,
          f.class,
          f.reason,
          f.agent,
          f.runId ?? "",
          f.requestId ?? "",
          f.senderNotice ?? "",
          f.detail ?? "",
        ]),
      ),
    );
    io.out("each reason code is explained in docs/reasons.md\n");
  });
}

export function registerRunsCommands(program: Command): void {
  const runs = program
    .command("runs")
    .description("agent runs and their traces (every model turn, tool call and gate decision)");
  const common = (c: Command) =>
    c
      .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
      .option("--data-dir <dir>", "local emulator state (default .postern/data)")
      .option("--resources <file>", "AWS resource names as JSON (the stack outputs)")
      .option("--json", "JSON output");
  common(runs.command("list").description("recent runs, newest first"))
    .option("--limit <n>", "how many", "20")
    .action(async (o: Flags) => {
      process.exitCode = await runsList(o);
    });
  common(
    runs
      .command("failures")
      .description("recent failures: refused sends, unsent cards and notices, failed runs"),
  )
    .option("--days <n>", "how many days back", "7")
    .option("--limit <n>", "how many", "50")
    .action(async (o: Flags) => {
      process.exitCode = await runsFailures(o);
    });
  common(runs.command("show <runId>").description("one run as a readable tree")).action(
    async (id: string, o: Flags) => {
      process.exitCode = await runsShow(id, o);
    },
  );
}
