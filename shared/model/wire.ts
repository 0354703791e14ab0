import type { z } from "zod";
import { type FailWithDetail, fail, type Ok } from "../result.ts";
import type { ModelTurn } from "./types.ts";

/** A provider response mapped to a turn, or why it could not be: which field broke the documented shape. */
export type ParsedTurn = Ok<{ readonly turn: ModelTurn }> | FailWithDetail<"model-malformed-response">;

export const malformed = (detail: string): FailWithDetail<"model-malformed-response"> =>
  fail("model-malformed-response", detail);

/** The first few zod issues as `path: message`, so a malformed response names the field that broke. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`)
    .join("; ");
}
