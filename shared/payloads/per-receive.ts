/**
 * One value per delivery of a queue message (the admin snapshot, read once per delivery instead of once
 * per use): read on first use and kept until `reset` (the handler calls it as each delivery starts), or, with
 * `maxAgeMs`, until it is that old (for callers that drive no deliveries, such as `postern send`). A failed read is
 * not kept.
 */
export function perReceive<T>(
  read: () => Promise<T>,
  opts: { readonly maxAgeMs?: number; readonly now?: () => number } = {},
): { get(): Promise<T>; reset(): void } {
  const now = opts.now ?? Date.now;
  let kept: { readonly at: number; readonly value: Promise<T> } | null = null;
  return {
    get() {
      if (!kept || (opts.maxAgeMs !== undefined && now() - kept.at > opts.maxAgeMs)) {
        const entry = { at: now(), value: read() };
        kept = entry;
        entry.value.catch(() => {
          if (kept === entry) kept = null;
        });
      }
      return kept.value;
    },
    reset() {
      kept = null;
    },
  };
}
