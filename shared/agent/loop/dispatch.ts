import type { ToolkitItem } from "../../admin/index.ts";
import { type FailWithDetail, fail, type Ok } from "../../result.ts";
import type { ToolContext } from "../../tool-framework/index.ts";
import { type Tool, type ToolResult, toolFailure } from "../../tool-framework/index.ts";
import type { CallCheck, CheckReason } from "./call-check.ts";
import { checkToolCall, type RunGateInput, type ToolGateReason } from "./toolkits.ts";

/** A tool call exactly as the model emitted it: nothing here is trusted. */
export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** Completed results by idempotency key, so a redelivered round replays instead of re-running a side effect. */
export interface ToolResultCache {
  get(key: string): Promise<ToolResult | null>;
  put(key: string, result: ToolResult): Promise<void>;
}

/** Why a call was refused before its tool ran: the id, the toolkit gate (G11), the input's size and schema, a check. */
export type DispatchRefusal =
  | "tool-call-id-invalid"
  | ToolGateReason
  | "tool-input-too-large"
  | "tool-input-invalid"
  | CheckReason;

/** Every failure the dispatcher writes itself; a tool's own failures carry the tool's codes. */
export type DispatchReason =
  | DispatchRefusal
  | "tool-confirm-unavailable"
  | "tool-error"
  | "tool-result-too-large";

/** A failure the dispatcher writes itself: typed, so a new code is added to the union (and to its docs) first. */
const dispatchFailure = (reason: DispatchReason, detail: string): ToolResult => toolFailure(reason, detail);

export type DispatchEvent =
  | {
      readonly type: "tool-refused";
      readonly data: { callId: string; name: string; reason: DispatchRefusal };
    }
  | {
      readonly type: "tool-call";
      readonly data: { callId: string; name: string; toolkits: readonly string[]; input: unknown };
    }
  | { readonly type: "tool-replayed"; readonly data: { callId: string; name: string } }
  | {
      readonly type: "tool-result";
      readonly data: { callId: string; name: string; ok: boolean; reason?: string };
    };

export interface DispatchDeps {
  readonly gate: RunGateInput;
  /** `grantedBy`: the toolkits that granted the call; what the tool may read follows from them. */
  makeContext(call: ToolCallRequest, idempotencyKey: string, grantedBy: readonly ToolkitItem[]): ToolContext;
  readonly cache: ToolResultCache;
  record(event: DispatchEvent): Promise<void>;
  readonly checks?: readonly CallCheck[];
  /** Calls to `confirm` tools go here (G14); without it they are refused: they never run inside the loop. */
  propose?(call: ToolCallRequest, input: unknown, toolkits: readonly string[]): Promise<ToolResult>;
  readonly runId: string;
  readonly round: number;
  readonly limits?: { readonly maxInputBytes?: number; readonly maxResultBytes?: number };
}

const DEFAULT_MAX_INPUT = 256 * 1024;
const DEFAULT_MAX_RESULT = 256 * 1024;
/**
 * Providers mint call ids of ~30 characters. The id goes into the idempotency key (a DynamoDB hash key, 2048
 * bytes at most) and into every trace event (32 KB each): an unbounded id from a hostile or broken model server
 * would crash the round on every redelivery, or silently drop its events.
 */
export const MAX_CALL_ID_CHARS = 256;
/** A tool-call event shows the input up to this size; beyond it a preview (events are capped at 32 KB). */
const MAX_TRACE_INPUT_BYTES = 8 * 1024;

/**
 * Run one model-requested tool call through every gate. Whatever the model emits, the outcome is a ToolResult
 * (a failure the model can read, with a stable reason) and an event: never an exception, never a bypass.
 */
export async function dispatchToolCall(call: ToolCallRequest, deps: DispatchDeps): Promise<ToolResult> {
  const admitted = await admitCall(call, deps);
  if (!admitted.ok) {
    await deps.record({
      type: "tool-refused",
      data: { callId: traceCallId(call.id), name: String(call.name).slice(0, 100), reason: admitted.reason },
    });
    return dispatchFailure(admitted.reason, admitted.detail);
  }
  const { tool, toolkits, grantedBy, input, inputSize } = admitted;
  const key = `${deps.runId}:${deps.round}:${call.id}`;
  const cached = await deps.cache.get(key);
  if (cached) {
    await deps.record({ type: "tool-replayed", data: { callId: call.id, name: tool.name } });
    return cached;
  }
  await deps.record({
    type: "tool-call",
    data: {
      callId: call.id,
      name: tool.name,
      toolkits,
      input: inputSize <= MAX_TRACE_INPUT_BYTES ? input : traceInputPreview(input, inputSize),
    },
  });
  const result =
    tool.sideEffects.kind === "external" && tool.sideEffects.confirm
      ? await proposeInstead(call, tool, input, toolkits, deps)
      : await runTool(call, tool, input, grantedBy, key, deps);
  await deps.cache.put(key, result);
  await deps.record({
    type: "tool-result",
    data: {
      callId: call.id,
      name: tool.name,
      ok: result.ok,
      ...(result.ok ? {} : { reason: result.reason }),
    },
  });
  return result;
}

/** A call the gates let through: the tool, the toolkits that granted it (ids and items), its validated input. */
type Admitted = Ok<{
  readonly tool: Tool;
  readonly toolkits: readonly string[];
  readonly grantedBy: readonly ToolkitItem[];
  readonly input: unknown;
  readonly inputSize: number;
}>;

/**
 * Every refusal before the tool runs, in order: the call id (it must fit the idempotency key and the trace), the
 * toolkit gate re-checked from the admin data rather than from what was offered (G11), the input's size and
 * schema, then the input checks (egress G13, closed channels G18, ...).
 */
async function admitCall(
  call: ToolCallRequest,
  deps: DispatchDeps,
): Promise<Admitted | FailWithDetail<DispatchRefusal>> {
  if (typeof call.id !== "string" || call.id.length === 0 || call.id.length > MAX_CALL_ID_CHARS)
    return fail("tool-call-id-invalid", `tool call ids must be 1-${MAX_CALL_ID_CHARS} characters`);
  const decision = checkToolCall(deps.gate, call.name);
  if (!decision.ok) return fail(decision.reason, `tool ${call.name} is not available in this conversation`);
  const { tool } = decision;
  const grantedBy = deps.gate.toolkits.filter((k) => decision.toolkits.includes(k.id));

  const maxInput = deps.limits?.maxInputBytes ?? DEFAULT_MAX_INPUT;
  const inputSize = jsonSize(call.input);
  if (inputSize === null || inputSize > maxInput)
    return fail("tool-input-too-large", `input must be JSON of at most ${maxInput} bytes`);
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`);
    return fail("tool-input-invalid", issues.join("; "));
  }
  for (const check of deps.checks ?? []) {
    const verdict = await check("input", { name: tool.name, input: parsed.data, grantedBy });
    if (!verdict.ok) return fail(verdict.reason, verdict.detail);
  }
  return { ok: true, tool, toolkits: decision.toolkits, grantedBy, input: parsed.data, inputSize };
}

/**
 * Propose → confirm → apply (G14): a confirm tool never runs inside the model loop; the call only adds an
 * operation to the run's plan, which an approver must confirm by mail.
 */
async function proposeInstead(
  call: ToolCallRequest,
  tool: Tool,
  input: unknown,
  toolkits: readonly string[],
  deps: DispatchDeps,
): Promise<ToolResult> {
  return deps.propose
    ? deps.propose(call, input, toolkits)
    : dispatchFailure("tool-confirm-unavailable", `${tool.name} needs an approver's confirmation`);
}

/**
 * The tool runs; its exception is the model's failure to read, not a crashed round. A result the model will read
 * is bounded in size, then put through the result checks (quote G15, ...): the first refusal replaces it.
 */
async function runTool(
  call: ToolCallRequest,
  tool: Tool,
  input: unknown,
  grantedBy: readonly ToolkitItem[],
  key: string,
  deps: DispatchDeps,
): Promise<ToolResult> {
  let result: ToolResult;
  try {
    result = await tool.use(deps.makeContext(call, key, grantedBy), input);
  } catch (err) {
    result = dispatchFailure(
      "tool-error",
      `${tool.name} failed: ${(err as Error)?.message ?? String(err)}`.slice(0, 500),
    );
  }
  if (!result.ok) return result;
  const maxResult = deps.limits?.maxResultBytes ?? DEFAULT_MAX_RESULT;
  const size = jsonSize({ data: result.data, content: result.content ?? [] });
  if (size === null || size > maxResult)
    return dispatchFailure("tool-result-too-large", `result exceeded ${maxResult} bytes`);
  for (const check of deps.checks ?? []) {
    const verdict = await check("result", { name: tool.name, input, result, grantedBy });
    if (!verdict.ok) return toolFailure(verdict.reason, verdict.detail);
  }
  return result;
}

/** The call id as traces show it: bounded, whatever the model sent. */
export function traceCallId(id: unknown): string {
  return String(id).slice(0, MAX_CALL_ID_CHARS);
}

function traceInputPreview(input: unknown, bytes: number): Record<string, unknown> {
  return { truncated: true, bytes, preview: JSON.stringify(input).slice(0, 1000) };
}

function jsonSize(value: unknown): number | null {
  try {
    const s = JSON.stringify(value);
    return s === undefined ? 0 : Buffer.byteLength(s);
  } catch {
    return null;
  }
}
