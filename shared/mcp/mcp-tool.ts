import * as z from "zod";
import type { McpServerItem, McpToolPin } from "../admin/index.ts";
import type { Tool, ToolResult } from "../tool-framework/index.ts";
import { toolFailure } from "../tool-framework/index.ts";
import { comparePins } from "./compare-pins.ts";
import { McpTransportRefused } from "./guarded-fetch.ts";
import { McpUnavailable } from "./mcp-unavailable.ts";
import type { McpConnector, McpSession } from "./open-session.ts";
import { resultContent } from "./result-content.ts";

/** A server that could not be listed before an offer: none of its tools offered; reported once per run (G19). */
export interface ServerUnavailable {
  readonly runId: string;
  readonly agent: string;
  readonly server: string;
  readonly reason: McpCallReason;
  readonly detail: string;
}

/** A pinned definition that no longer matches the server's: reported once per run and tool (G19, G20). */
export interface DefinitionChange {
  readonly runId: string;
  readonly agent: string;
  readonly server: string;
  readonly tool: string;
  readonly exposedAs: string;
  /** The live definition's hash, or `missing` when the server no longer lists the tool. */
  readonly live: string;
}

export interface McpToolDeps {
  readonly connect: McpConnector;
  /** Count one call against the run's budget for this server; false once `max` calls were made (durable). */
  takeCall(runId: string, server: string, max: number): Promise<boolean>;
  definitionChanged(change: DefinitionChange): Promise<void>;
}

/** The stable codes an MCP tool fails with (docs/reasons.md); the server's own errors are `mcp-tool-error`. */
export type McpCallReason =
  | "mcp-call-budget"
  | "mcp-no-principal"
  | "mcp-definition-changed"
  | "mcp-timeout"
  | "mcp-call-failed"
  | "mcp-tool-error"
  | McpTransportRefused["reason"]
  | McpUnavailable["reason"];

/** Where a tool came from, for the offer check: only tools built here have one. */
const origins = new WeakMap<Tool, { readonly server: McpServerItem; readonly pin: McpToolPin }>();
export const mcpOrigin = (tool: Tool) => origins.get(tool);

/** `_meta` keys Postern sets on every call (docs/mcp.md): a server that scopes by user reads the principal here. */
export const META_PRINCIPAL = "io.postern/principal";
export const META_AGENT = "io.postern/agent";
export const META_IDEMPOTENCY_KEY = "io.postern/idempotency-key";

/**
 * One reviewed MCP tool as a Postern tool. The model is offered the definition as reviewed (never the live one);
 * the operator's class decides G14/G18, never the server's annotations; the dispatcher's gates apply as to any
 * tool (G11 grants, G13 egress, G18 closed channels through `network`, the result cap, the tool-result cache that
 * makes a redelivered call replay instead of calling twice). Each call lists the server again first: a definition
 * changed between the offer and the call is not called (a rug pull mid-run).
 */
export function mcpTool(server: McpServerItem, pin: McpToolPin, deps: McpToolDeps): Tool {
  const host = server.transport === "http" && server.url ? new URL(server.url).hostname.toLowerCase() : null;
  const classes = [...server.dataClasses];
  const tool: Tool = {
    name: pin.exposedAs,
    displayName: `${server.id}: ${pin.name}`,
    description: pin.description,
    summary: `MCP tool ${pin.name} of ${server.id} (${pin.class})`,
    input: inputValidator(modelSchema(pin)),
    inputJsonSchema: modelSchema(pin),
    egress: {
      kind: "classified",
      // A `restricted` tool's results are record content whatever the server item says: the operator classed
      // them as wider than the sender's own, so an external model gets them only where the policy allows records.
      record: server.recordContent || pin.class === "restricted",
      // The arguments are the model's own words; what they carry out is G18's concern (network below).
      classifyInput: () => [],
      classifyResult: () => classes,
    },
    sideEffects: pin.class === "act" ? { kind: "external", confirm: true } : { kind: "none" },
    ...(pin.class === "restricted" ? { closesChannels: true } : {}),
    // The arguments go to the server's host: once a run's channels are closed only an allow-listed host is reached
    // (G18); a stdio server has no host and is refused then.
    network: { host: () => host },
    async use(ctx, input): Promise<ToolResult> {
      const principal = pin.principalArgument;
      if (principal !== undefined && !ctx.sender)
        return toolFailure(
          "mcp-no-principal",
          `${pin.exposedAs} acts for a proven sender; this run has none`,
        );
      if (!(await deps.takeCall(ctx.runId, server.id, server.maxCallsPerRun)))
        return toolFailure(
          "mcp-call-budget",
          `at most ${server.maxCallsPerRun} calls to ${server.id} per conversation`,
        );
      let session: McpSession | null = null;
      try {
        session = await deps.connect(server);
        const live = comparePins(await session.listTools(), [pin]);
        if (live.verified.length === 0) {
          await deps.definitionChanged({
            runId: ctx.runId,
            agent: ctx.agent.address,
            server: server.id,
            tool: pin.name,
            exposedAs: pin.exposedAs,
            live: live.changed[0]?.hash ?? "missing",
          });
          return toolFailure(
            "mcp-definition-changed",
            `${pin.exposedAs} changed since it was reviewed and is unavailable until an operator reviews it`,
          );
        }
        const args = { ...(input as Record<string, unknown>) };
        // G17: whatever the model put there, the argument is the proven sender.
        if (principal !== undefined && ctx.sender) args[principal] = ctx.sender.address;
        const result = await session.callTool(pin.name, args, {
          // G17: the proven sender, never a model-supplied one; absent on scheduled runs.
          ...(ctx.sender ? { [META_PRINCIPAL]: ctx.sender.address } : {}),
          [META_AGENT]: ctx.agent.address,
          // Stable across redeliveries: a server that deduplicates can make an `act` call exactly-once.
          [META_IDEMPOTENCY_KEY]: ctx.idempotencyKey,
        });
        return resultContent(server.id, pin.name, result);
      } catch (err) {
        return callFailure(server, err);
      } finally {
        await session?.close().catch(() => undefined);
      }
    },
  };
  origins.set(tool, { server, pin });
  return tool;
}

function callFailure(server: McpServerItem, err: unknown): ToolResult {
  const f = mcpFailure(server, err);
  return toolFailure(f.reason, f.detail);
}

/** Why reaching a server failed, as a stable code (docs/reasons.md) and a detail that names no secret. */
export function mcpFailure(
  server: McpServerItem,
  err: unknown,
): { readonly reason: McpCallReason; readonly detail: string } {
  if (err instanceof McpTransportRefused || err instanceof McpUnavailable)
    return { reason: err.reason, detail: err.message };
  // The SDK's RequestTimeout (-32001); its message names no secret.
  if ((err as { code?: unknown })?.code === -32001)
    return { reason: "mcp-timeout", detail: `${server.id} did not answer within ${server.timeoutMs} ms` };
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof McpTransportRefused) return { reason: cause.reason, detail: cause.message };
  return { reason: "mcp-call-failed", detail: `${server.id}: ${errorShape(err)}` };
}

/**
 * What went wrong, in our words only. A JSON-RPC error's message is the server's (`MCP error -32603: <anything>`),
 * as is an HTTP error's body; this detail reaches the model outside any fence (tool-result.ts), the trace and the
 * failure feed, so a server could write instructions or terminal escapes into all three. It is reduced to the
 * JSON-RPC code, the HTTP status, or the error's class: the server's words about a failure are never passed on.
 */
function errorShape(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const name = (err as { name?: unknown })?.name;
  // By class name, not instanceof: importing the SDK's classes here would load the SDK at agent-step's cold
  // start, which loads it on the first connection (lazy-open-session.ts); bundles keep class names.
  if (name === "McpError" && Number.isInteger(code)) return `the server answered with JSON-RPC error ${code}`;
  if ((err as { constructor?: { name?: unknown } })?.constructor?.name === "StreamableHTTPError")
    return typeof code === "number" && code >= 100 && code <= 599
      ? `the server answered with HTTP status ${code}`
      : "the server's answer was not a valid MCP response";
  const system = (causeOf(err) as { code?: unknown })?.code;
  const kind = typeof name === "string" && /^[A-Za-z]{1,40}$/.test(name) ? name : "error";
  // A socket error's code (ECONNREFUSED, ETIMEDOUT) is Node's, not the server's.
  return typeof system === "string" && /^E[A-Z_]{1,30}$/.test(system)
    ? `the request failed (${kind}, ${system})`
    : `the request failed (${kind})`;
}

const causeOf = (err: unknown): unknown => (err as { cause?: unknown })?.cause;

/**
 * The reviewed input schema as the dispatcher's validator. zod's JSON Schema reader covers what servers declare;
 * a schema it cannot read still admits only a JSON object (the server validates its own arguments).
 */
function inputValidator(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(withoutDialect(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/** The reviewed schema as the model sees it: without the principal argument, which Postern fills (G17). */
function modelSchema(pin: McpToolPin): Record<string, unknown> {
  const schema = withoutDialect(pin.inputSchema);
  const field = pin.principalArgument;
  if (field === undefined) return schema;
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  delete properties[field];
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => r !== field) : undefined;
  return { ...schema, properties, ...(required ? { required } : {}) };
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
