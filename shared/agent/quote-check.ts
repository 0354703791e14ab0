import { normaliseUntrusted } from "../gate/fence.ts";
import { fail, ok } from "../result.ts";
import type { ToolRegistry } from "../tool-framework/registry.ts";
import type { CallCheck } from "./dispatch.ts";

export type QuoteReason = "evidence-missing" | "evidence-too-short" | "evidence-not-quoted";

/** Shorter spans match by accident ("the", "order"): not evidence of anything the sender wrote. */
export const MIN_QUOTE_CHARS = 8;

/**
 * The quote check (G15): a tool field declared as evidence must be a contiguous quote, at least 8 characters,
 * of the untrusted text this run accepted, compared after the same normalisation the fence applies. A model
 * steered by an injection cannot cite a fact the sender never wrote.
 */
export function quoteCheck(opts: { registry: ToolRegistry; untrustedText: string }): CallCheck {
  const corpus = collapse(normaliseUntrusted(opts.untrustedText));
  return async (phase, call) => {
    if (phase !== "input") return ok();
    const fields = opts.registry.get(call.name)?.evidenceFields ?? [];
    for (const field of fields) {
      const value = (call.input as Record<string, unknown> | null)?.[field];
      if (typeof value !== "string") {
        return fail("evidence-missing", `${field} must quote the message`);
      }
      const quote = collapse(normaliseUntrusted(value));
      if (quote.length < MIN_QUOTE_CHARS) {
        return fail("evidence-too-short", `${field} must quote at least ${MIN_QUOTE_CHARS} characters`);
      }
      if (!corpus.includes(quote)) {
        return fail("evidence-not-quoted", `${field} is not a quote of the accepted message text`);
      }
    }
    return ok();
  };
}

/** Runs of whitespace compare equal: a quote re-wrapped across lines is still the same words. */
function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
