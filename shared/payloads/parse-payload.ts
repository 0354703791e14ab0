import type * as z from "zod";
import { type FailWithDetail, fail, type Ok } from "../result.ts";

/**
 * Why a queue body was refused, the same two codes for every queue (agent-step, outbound, events): a body no
 * producer of ours writes is a bug upstream or a foreign writer, and the DLQ keeps it for the operator
 * (docs/reasons.md).
 */
export type PayloadRefusal = "payload-not-json" | "payload-invalid";

export type PayloadResult<T> = Ok<{ readonly message: T }> | FailWithDetail<PayloadRefusal>;

/** Bytes of a schema error kept for the log line: enough to see which field, never the whole body again. */
const MAX_DETAIL_CHARS = 300;

/** A queue body → the payload `schema` accepts, or why not (`detail`: what is wrong, for the operator's log). */
export function parsePayload<T>(body: string, schema: z.ZodType<T>): PayloadResult<T> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return fail("payload-not-json", "not JSON");
  }
  const parsed = schema.safeParse(json);
  return parsed.success
    ? { ok: true, message: parsed.data }
    : fail(
        "payload-invalid",
        parsed.error.issues
          .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
          .join("; ")
          .slice(0, MAX_DETAIL_CHARS),
      );
}
