import { type McpRuntime, mcpRuntime, mcpSecretLookup, PIN_PREDATES_COVERAGE } from "../../mcp/index.ts";
import { systemResolver } from "../../net/index.ts";
import { failureReporter } from "../../store/index.ts";
import type { StepWiringOptions } from "./wired.ts";

/** MCP servers over the store: the per-run call budget in the state table, a changed definition as a failure. */
export function mcpRuntimeOverStore(opts: StepWiringOptions): McpRuntime {
  const { stores, now } = opts;
  const failures = failureReporter(stores, opts.logger, now);
  return mcpRuntime({
    resolve: opts.mcp?.resolve ?? systemResolver,
    // An env-var name locally; a Secrets Manager reference in AWS (shared/admin/mcp-server-item.ts).
    secret: mcpSecretLookup(opts.secrets),
    counters: stores.state,
    ...(opts.mcp?.local ? { local: opts.mcp.local } : {}),
    ...(opts.mcp?.connect ? { connect: opts.mcp.connect } : {}),
    report: (c) =>
      failures.report({
        class: "mcp-definition-changed",
        reason: "mcp-definition-changed",
        detail:
          c.live === PIN_PREDATES_COVERAGE
            ? `${c.server}/${c.tool} (${c.exposedAs}): its pin predates the coverage of titles and output schemas and the tool has one; review it again (postern mcp review ${c.server})`
            : `${c.server}/${c.tool} (${c.exposedAs}): live definition ${c.live === "missing" ? "missing" : `hash ${c.live.slice(0, 12)}`} differs from the reviewed pin`,
        agent: c.agent,
        runId: c.runId,
      }),
    reportUnavailable: (u) =>
      failures.report({
        class: "mcp-unavailable",
        reason: u.reason,
        detail: `${u.server}: ${u.detail}; none of its tools were offered`,
        agent: u.agent,
        runId: u.runId,
      }),
  });
}
