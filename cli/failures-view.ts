import { printable } from "../shared/mail/index.ts";
import type { FailureEntry } from "../shared/ports/index.ts";

/** The terminal width `runs failures` fits by default: a common split-pane width, and 20 under 120. */
export const FAILURES_WIDTH = 100;

/**
 * One line, at most `width` characters: a longer one ends in `…`, so a cut is never mistaken for the whole. Through
 * printable(): a failure's message is SES's or a provider's text, and a control character in it must not drive
 * the terminal.
 */
export function fitLine(text: string, width: number): string {
  return printable(text, { max: Math.max(1, width - 1) });
}

/**
 * The failure feed in at most FAILURES_WIDTH columns: one block per failure (when, class and reason; the agent and
 * whether the sender was told; the run and request ids, whole; then SES's or the provider's message, cut with `…`).
 * The eight-column table was ~230 columns wide and wrapped into noise; `--wide` still prints it.
 */
export function failureBlocks(items: readonly FailureEntry[], width: number = FAILURES_WIDTH): string {
  return items
    .map((f) => {
      const when = f.at.replace("T", " ").replace(/\.\d+Z$|Z$/, "");
      // Ids are what an operator copies into `runs show` or a search: never cut (one line each when both do not fit).
      const ids = [f.runId ? `run ${f.runId}` : "", f.requestId ? `request ${f.requestId}` : ""].filter(
        Boolean,
      );
      const idLines = ids.join("  ").length + 2 <= width ? [ids.join("  ")] : ids;
      return [
        fitLine(`${when}  ${f.class}  ${f.reason}`, width),
        fitLine(`  agent ${f.agent}${f.senderNotice ? `  sender told: ${f.senderNotice}` : ""}`, width),
        ...idLines.filter(Boolean).map((l) => `  ${l}`),
        ...(f.detail ? [fitLine(`  ${f.detail}`, width)] : []),
      ].join("\n");
    })
    .join("\n\n");
}
