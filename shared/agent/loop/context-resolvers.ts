import type { ToolkitItem } from "../../admin/index.ts";
import { evaluateLayer, renderUntrusted } from "../../gate/index.ts";
import { fail } from "../../result.ts";
import type { ContextResolver, ContextResolverInput } from "../../tool-framework/index.ts";
import type { CallCheck } from "./call-check.ts";

/** ContextResolver output larger than this is cut: context is for facts, not dumps. */
const MAX_RESOLVER_CHARS = 8000;

/**
 * One resolver's run, as the trace's `resolver` event shows it. `reason`: the resolver's own code, the egress gate's
 * (CheckReason), or `resolver-error: <message>` when it threw.
 */
export interface ResolverRun {
  readonly name: string;
  readonly ok: boolean;
  readonly reason?: string;
}

/**
 * Run the resolvers this run may use (same toolkit gate as tools: attached, sender gate, scheduled flag) before
 * the first model call. Each result passes the egress gate like a tool result, and is rendered inside the fence.
 * A failing or refused resolver adds nothing; it never fails the run.
 */
export async function runResolvers(opts: {
  resolvers: readonly ContextResolver[];
  toolkits: readonly ToolkitItem[];
  ctx: ContextResolverInput;
  kind: "reply" | "scheduled";
  egress: CallCheck;
}): Promise<{ blocks: string[]; runs: ResolverRun[] }> {
  const { ctx } = opts;
  const blocks: string[] = [];
  const runs: ResolverRun[] = [];
  for (const r of opts.resolvers) {
    const grantedBy = opts.toolkits.filter(
      (k) =>
        k.tools.includes(r.name) &&
        k.agents.includes(ctx.agent.address) &&
        (opts.kind === "scheduled"
          ? k.allowScheduled
          : ctx.sender !== null && evaluateLayer(k.senderRules, ctx.sender.routingKey) === "allow"),
    );
    if (grantedBy.length === 0) continue;
    let result: Awaited<ReturnType<ContextResolver["resolve"]>>;
    try {
      result = await r.resolve(ctx);
    } catch (err) {
      result = fail(`resolver-error: ${(err as Error)?.message ?? err}`.slice(0, 200));
    }
    if (!result.ok) {
      runs.push({ name: r.name, ok: false, reason: result.reason });
      continue;
    }
    const verdict = await opts.egress("result", {
      name: r.name,
      input: {},
      result: { ok: true, data: result.data },
      grantedBy,
    });
    if (!verdict.ok) {
      runs.push({ name: r.name, ok: false, reason: verdict.reason });
      continue;
    }
    const text = JSON.stringify(result.data, null, 1).slice(0, MAX_RESOLVER_CHARS);
    blocks.push(
      `Context from ${r.name} (${r.description}):\n${renderUntrusted([{ label: null, text }], { kind: "CONTEXT" })}`,
    );
    runs.push({ name: r.name, ok: true });
  }
  return { blocks, runs };
}
