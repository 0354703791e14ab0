import { LINE_PREFIX, normaliseUntrusted } from "../../gate/index.ts";
import { READ_EMAIL } from "../../mail/index.ts";
import { fail, ok } from "../../result.ts";
import type { ToolRegistry } from "../../tool-framework/index.ts";
import type { Transcript } from "../ports.ts";
import type { CallCheck } from "./call-check.ts";

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

/**
 * The untrusted text a run accepted, for the quote check (G15): round 1's (`untrustedText`: the mail and history as
 * shown, cut) and every slice of inbound mail read_email showed in the rounds since. A long mail's later
 * text reaches the model only through read_email, so only then can it be quoted; what was never shown never can.
 * Only read_email's own results count (paired with the call they answer by the assistant turn before them): text
 * a web page or another tool returned is not the sender's.
 */
export function acceptedText(transcript: Pick<Transcript, "messages" | "untrustedText">): string {
  const shown: string[] = [transcript.untrustedText];
  let names = new Map<string, string>();
  for (const m of transcript.messages) {
    if (m.role === "assistant") names = new Map(m.toolCalls.map((c) => [String(c.id), String(c.name)]));
    if (m.role !== "tool") continue;
    for (const r of m.results) {
      if (r.isError || names.get(r.toolCallId) !== READ_EMAIL || r.content.type !== "json") continue;
      const slice = inboundSlice(r.content.value);
      if (slice !== null) shown.push(slice);
    }
  }
  return shown.join("\n");
}

/**
 * The text inside a read_email slice's fence (the lines behind the prefix, as shown), if it is inbound mail: like
 * round 1's history, the agent's own replies are never evidence of what a sender wrote.
 */
function inboundSlice(value: unknown): string | null {
  const v = value as { direction?: unknown; text?: unknown } | null;
  if (v?.direction !== "in" || typeof v.text !== "string") return null;
  const lines = v.text.split("\n");
  const open = /^<<<UNTRUSTED MAIL ([0-9a-f]{16,64})>>>$/.exec(lines[0] ?? "");
  if (!open) return null;
  const body: string[] = [];
  for (const line of lines.slice(1)) {
    if (line === `<<<END UNTRUSTED MAIL ${open[1]}>>>`) return body.join("\n");
    if (line.startsWith(LINE_PREFIX)) body.push(line.slice(LINE_PREFIX.length));
  }
  return null;
}

/** Runs of whitespace compare equal: a quote re-wrapped across lines is still the same words. */
function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
