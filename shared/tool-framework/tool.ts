import * as z from "zod";
import { PosternError } from "../errors.ts";
import type { DocumentMediaType, ImageMediaType } from "../model/index.ts";
import { type FailWithDetail, fail, type Ok } from "../result.ts";
import type { ToolContext } from "./context.ts";

/**
 * What a tool's results (and inputs) carry, for the egress gate (G13). Every tool must declare one: a tool that
 * declares nothing does not register (and a tripwire test iterates the registry).
 * - `structure`: no record content (acknowledgements, ids, counts).
 * - `classified`: a classifier names the data classes present in a call's input and in its result; `record`
 *   marks the result as record content (archive mail, customer records) even when no class is named.
 * - `exempt`: carries content the egress gate must not judge, with the reason (e.g. the sender's own words).
 */
export type EgressDeclaration =
  | { readonly kind: "structure" }
  | {
      readonly kind: "classified";
      readonly record: boolean;
      classifyInput(input: unknown): readonly string[] | Promise<readonly string[]>;
      classifyResult(data: unknown): readonly string[] | Promise<readonly string[]>;
    }
  | { readonly kind: "exempt"; readonly reason: string };

/**
 * Side effects outside Postern's own state. `external` tools must be `confirm` (G14) or carry an exemption
 * reason (send_email is the agent's voice).
 */
export type SideEffects =
  | { readonly kind: "none" }
  | { readonly kind: "internal" }
  | { readonly kind: "external"; readonly confirm: true }
  | { readonly kind: "external"; readonly confirm: false; readonly exemptReason: string };

/** Content a tool hands the model besides JSON data: text, or an image/PDF where the model supports it. */
export type ToolContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly mediaType: ImageMediaType; readonly base64: string }
  | {
      readonly type: "document";
      readonly mediaType: DocumentMediaType;
      readonly base64: string;
      readonly name?: string;
    };

/**
 * A tool's failure: a stable reason code (each tool's are listed in docs/tools/, and typed as its `R`) and a detail
 * the model reads, so it can correct the call. The model sees `{ error: reason, message: detail }`.
 */
export type ToolFailure<R extends string = string> = FailWithDetail<R>;

/** `R`: the tool's own reason codes. A registered tool is `ToolResult<string>`: operators' tools name their own. */
export type ToolResult<R extends string = string> = ToolSuccess | ToolFailure<R>;
export type ToolSuccess = Ok<{ readonly data: unknown; readonly content?: readonly ToolContent[] }>;

export const success = (data: unknown, content?: readonly ToolContent[]): ToolSuccess =>
  content ? { ok: true, data, content } : { ok: true, data };
/** The one way a tool (or the dispatcher, for it) fails a call. */
export const toolFailure = <R extends string>(reason: R, detail: string): ToolFailure<R> =>
  fail(reason, detail);

export interface ToolSpec<S extends z.ZodType = z.ZodType, R extends string = string> {
  /** snake_case id the model calls. */
  readonly name: string;
  /** For operators (CLI, traces); defaults to the titled id. */
  readonly displayName?: string;
  /** Model-facing: what the tool does and when to use it. */
  readonly description: string;
  /** Operator-facing one-liner. */
  readonly summary: string;
  readonly input: S;
  readonly egress: EgressDeclaration;
  readonly sideEffects: SideEffects;
  /** Input fields that must be a contiguous quote of the run's accepted untrusted text (G15). */
  readonly evidenceFields?: readonly string[];
  /** Reads stored mail or files: must scope by the context's agent (and thread). Tripwire-checked. */
  readonly readsStoredMail?: boolean;
  /**
   * Sends its input to a host on the network (a fetch, a search query): the host one call reaches, lower-case,
   * or null when none can be named (then it is refused wherever a host must be allowed). Once a run's channels are
   * closed (G18) such a call runs only to a host on a granting toolkit's `egressHosts`. A tool that calls out
   * must declare this, or closed channels cannot see it.
   */
  readonly network?: { host(input: unknown): string | null };
  /**
   * Its successful results close the run's channels (G18) whatever they hold: an outside tool the operator classed
   * `restricted`, whose data classes cannot be named in advance.
   */
  readonly closesChannels?: boolean;
  use(ctx: ToolContext, input: z.output<S>): Promise<ToolResult<R>>;
}

export interface Tool extends ToolSpec {
  readonly displayName: string;
  /** JSON Schema of the input, as the model sees it. */
  readonly inputJsonSchema: Record<string, unknown>;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Define a tool; rejects at load time what would otherwise fail at dispatch or slip past a gate. */
export function defineTool<S extends z.ZodType, R extends string = string>(spec: ToolSpec<S, R>): Tool {
  if (!TOOL_NAME.test(spec.name))
    throw new PosternError("definition-invalid", `tool name ${JSON.stringify(spec.name)} must be snake_case`);
  if (!spec.egress)
    throw new PosternError("definition-invalid", `tool ${spec.name} declares no egress classification (G13)`);
  if (
    spec.sideEffects.kind === "external" &&
    !spec.sideEffects.confirm &&
    !spec.sideEffects.exemptReason.trim()
  ) {
    throw new PosternError(
      "definition-invalid",
      `tool ${spec.name} has external side effects: mark it confirm or give an exemption reason (G14)`,
    );
  }
  if (spec.egress.kind === "exempt" && !spec.egress.reason.trim()) {
    throw new PosternError("definition-invalid", `tool ${spec.name}: an egress exemption needs a reason`);
  }
  const inputJsonSchema = z.toJSONSchema(spec.input, { io: "input" }) as Record<string, unknown>;
  delete inputJsonSchema.$schema;
  return {
    ...(spec as unknown as ToolSpec),
    displayName: spec.displayName ?? titleCase(spec.name),
    inputJsonSchema,
  };
}

function titleCase(name: string): string {
  return name
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
}
