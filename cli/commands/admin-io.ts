import type { Logger } from "../../shared/logger.ts";
import { printable, printableJson } from "../../shared/mail/index.ts";

/** Where admin commands write; the real CLI binds stdout/stderr, tests capture strings. */
export interface AdminIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: AdminIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Repository warnings (invalid items skipped, fail-closed rules) go to stderr so stdout stays clean JSON. */
export function ioLogger(io: AdminIo): Logger {
  return {
    warn: (m) => io.err(`warning: ${m}\n`),
    error: (m) => io.err(`warning: ${m}\n`),
    info: () => {},
    debug: () => {},
  };
}

/** The widest a cell is printed: a server's 5,000-character name or message is cut with `…`, not a screenful. */
const MAX_CELL_CHARS = 300;

/**
 * Fixed-width columns. Cells go through `printable` (stored values are often outside text: a failure's message, a
 * server's tool name): one line each (newlines shown as ⏎ so a crafted value cannot fake rows), no control, bidi or
 * invisible character reaches the terminal, cut at MAX_CELL_CHARS.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const clean = (s: string) => printable(s, { max: MAX_CELL_CHARS });
  const all = [headers, ...rows].map((r) => r.map(clean));
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return `${all
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}

/** JSON for stdout: exact data, with C1, bidi and invisible characters written as `\uXXXX` escapes (printableJson). */
export function json(value: unknown): string {
  return `${printableJson(value)}\n`;
}

/** Comma-separated option → trimmed, non-empty entries. */
export function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
