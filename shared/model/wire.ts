import type { z } from "zod";
import type { ModelTurn } from "./types.ts";

/** A provider response mapped to a turn, or why it could not be (becomes `model-malformed-response`). */
export type ParsedTurn =
  | { readonly ok: true; readonly turn: ModelTurn }
  | { readonly ok: false; readonly detail: string };

/** The first few zod issues as `path: message`, so a malformed response names the field that broke. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`)
    .join("; ");
}
