import { PosternError } from "../../shared/errors.ts";
import {
  FailureLog,
  MessageRepo,
  PlanStore,
  RunEventRepo,
  RunRepo,
  StateRepo,
} from "../../shared/store/index.ts";
import { confirmToolPredicate } from "../../shared/trace/index.ts";
import { describeError } from "../errors.ts";
import { renderRunTree } from "../runs-tree.ts";
import { openTableTarget, type TableTarget } from "../target.ts";
import { type AdminIo, json, processIo, table } from "./admin-io.ts";

/** `postern runs list|show`: loaded only when one of them runs (the store pulls in the AWS SDK). */
export interface RunsFlags {
  target?: "local" | "aws";
  dataDir?: string;
  resources?: string;
  json?: boolean;
  limit?: number;
  days?: number;
}

async function withTarget(
  flags: RunsFlags,
  io: AdminIo,
  body: (t: TableTarget) => Promise<void>,
): Promise<number> {
  let target: TableTarget | undefined;
  try {
    target = await openTableTarget({
      target: flags.target ?? (flags.resources ? "aws" : "local"),
      ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
      ...(flags.resources ? { resourcesFile: flags.resources } : {}),
    });
    await body(target);
    return 0;
  } catch (err) {
    const e = describeError(err);
    io.err(`error: ${e.line}\n`);
    return e.exitCode;
  } finally {
    await target?.close();
  }
}

export async function runsList(flags: RunsFlags, io: AdminIo = processIo): Promise<number> {
  return withTarget(flags, io, async (t) => {
    const runs = await new RunRepo({ dynamo: t.clients.dynamo, tables: t.resources.tables }).listRecent(
      flags.limit ?? 20,
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

export async function runsShow(runId: string, flags: RunsFlags, io: AdminIo = processIo): Promise<number> {
  return withTarget(flags, io, async (t) => {
    const deps = { dynamo: t.clients.dynamo, tables: t.resources.tables };
    const run = await new RunRepo(deps).get(runId);
    if (!run) throw new PosternError("record-missing", `no run ${runId}`);
    const events = await new RunEventRepo(deps).list(runId);
    // The run's plan names the calls that were proposals (G14): they read "proposed", not "ok".
    const plan = await new PlanStore({ ...deps, state: new StateRepo(deps) }).get(runId);
    // The tool registry loads every tool's module: only `runs show` needs it, so `runs list` stays quick.
    const { defaultRegistry } = await import("../../tools/index.ts");
    const ctx = {
      proposedCallIds: new Set(plan?.ops.map((o) => o.callId) ?? []),
      isConfirmTool: confirmToolPredicate(defaultRegistry()),
    };
    // The mail that started the run, as stored: `postern check <id>` runs the gate on it again.
    const message = run.messageId ? await new MessageRepo(deps).get(run.agent, run.messageId) : null;
    const raw = message?.sesMessageId ? `inbound/${message.sesMessageId}` : null;
    if (flags.json) return io.out(json({ run, events, rawMail: raw, plan }));
    io.out(renderRunTree(run, events, ctx, plan));
    if (raw && message?.sesMessageId)
      io.out(`raw mail: ${raw}  (npx postern check ${message.sesMessageId} --rcpt ${run.agent} --show)\n`);
  });
}

/**
 * G19: every failure that must reach a person, newest first (the failure feed: a refused send, an unsent card or
 * notice, a failed run, an approved plan that failed), including those that belong to no run (a refusal notice from verify).
 */
export async function runsFailures(flags: RunsFlags, io: AdminIo = processIo): Promise<number> {
  return withTarget(flags, io, async (t) => {
    const days = flags.days ?? 7;
    const items = await new FailureLog({ dynamo: t.clients.dynamo, tables: t.resources.tables }).listRecent({
      now: new Date(),
      days,
      limit: flags.limit ?? 50,
    });
    if (flags.json) return io.out(json(items));
    if (items.length === 0) return io.out(`no failures in the last ${days} day(s)\n`);
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
