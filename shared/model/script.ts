import { readFileSync } from "node:fs";
import * as z from "zod";
import { formatIssues } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import { MODEL_FAILURE_REASONS } from "./types.ts";

const scriptToolCall = z
  .object({
    name: z.string().min(1),
    /** Any JSON, deliberately unvalidated: adversarial drills send inputs the tool's schema must reject. */
    input: z.unknown().optional(),
    /** Replaces the deterministic `call_<turn>_<i>` id (e.g. to drill duplicate ids). */
    id: z.string().min(1).optional(),
    /** Simulates unparseable arguments from an OpenAI-compatible server: the call carries `malformedInput`. */
    malformedInput: z.string().optional(),
  })
  .strict();

const scriptTurnBase = z
  .object({
    text: z.string().default(""),
    toolCalls: z.array(scriptToolCall).default([]),
    /** Default: `tool_use` when the turn has tool calls, else `end`. */
    stopReason: z.enum(["end", "tool_use", "max_tokens", "other"]).optional(),
    /** Default: a deterministic estimate (characters / 4) so budget checks see non-zero spend. */
    usage: z
      .object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() })
      .strict()
      .optional(),
    /** Makes this turn a failure instead (drills: throttling, malformed output, ...). */
    fail: z
      .object({
        reason: z.enum(MODEL_FAILURE_REASONS),
        detail: z.string().default("scripted failure"),
        retryable: z.boolean().default(false),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * A turn may name alternatives chosen by the engine's own words: the first case whose `whenLastTurnStartsWith`
 * begins the last user turn's text replaces the turn. An approved plan's continuation starts `Plan outcome: applied`
 * or `Plan outcome: failed (<reason>)` (shared/agent/plans/plan-outcome.ts), so a script can answer the outcome the
 * apply had instead of asserting one. The text is the engine's first line, never a tool's data or a sender's mail.
 */
const scriptTurn = scriptTurnBase
  .extend({
    cases: z
      .array(z.object({ whenLastTurnStartsWith: z.string().min(1), turn: scriptTurnBase }).strict())
      .optional(),
  })
  .strict();

/** `{"turns": [{"toolCalls": [{"name": "send_email", "input": {...}}]}, {"text": "done"}]}` */
export const modelScript = z
  .object({ turns: z.array(scriptTurn).min(1, "a script needs at least one turn") })
  .strict();

export type ModelScript = z.infer<typeof modelScript>;
export type ScriptTurn = z.infer<typeof scriptTurnBase>;

/** An invalid script: each problem names the field (`turns.0.toolCalls.0.name: ...`). */
export class ScriptError extends PosternError {
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(
      "misconfigured",
      `${source} is not a valid model script:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    this.name = "ScriptError";
    this.problems = problems;
  }
}

export function parseScript(raw: unknown, source = "model script"): ModelScript {
  const result = modelScript.safeParse(raw);
  if (!result.success) throw new ScriptError(source, formatIssues(result.error.issues));
  return result.data;
}

/** A missing or invalid script is misconfiguration: it throws, at model creation, with the path in the message. */
export function loadScript(path: string): ModelScript {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ScriptError(path, [
      `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    ]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ScriptError(path, [`not valid JSON: ${(err as Error).message}`]);
  }
  return parseScript(raw, path);
}
