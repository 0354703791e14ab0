import type { Logger } from "../../shared/logger.ts";

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

/** Fixed-width columns; cells are single-line (newlines shown as ⏎ so a crafted value cannot fake rows). */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const clean = (s: string) => s.replace(/\r\n|[\r\n\u2028\u2029]/g, "⏎");
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

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Comma-separated option → trimmed, non-empty entries. */
export function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
