import { AsyncLocalStorage } from "node:async_hooks";

/**
 * How a request shows times: in the operator's zone, and relative to now. Set once per request by the app (the
 * zone from the operator's choice on /settings, else the console's default) and read by `time()` wherever a view
 * renders one, so the dozens of views that print a time need no extra parameter each. Outside a request (a test
 * rendering a view alone) times are UTC with no relative part.
 */
export interface TimeView {
  readonly zone: string;
  readonly now: Date;
}

const current = new AsyncLocalStorage<TimeView>();

export function withTimeView<T>(view: TimeView, fn: () => T): T {
  return current.run(view, fn);
}

export const currentTimeView = (): TimeView | undefined => current.getStore();

/** An IANA zone name this runtime knows, or null (a cookie is the operator's to edit: never trusted as is). */
export function knownZone(zone: string | undefined): string | null {
  if (!zone || zone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `2026-05-04 14:02:11 CEST`: sortable, with the zone's own abbreviation (or offset) so nobody guesses the zone. */
export function absoluteTime(iso: string, zone: string): string {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    formatters.set(zone, f);
  }
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 days ago`, `in 9 min`; nothing past 30 days (the date says it). */
export function relativeTime(iso: string, now: Date): string | null {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return null;
  const s = Math.round((now.getTime() - t) / 1000);
  const a = Math.abs(s);
  if (a < 60) return "just now";
  const [n, unit] =
    a < 3600
      ? [Math.floor(a / 60), "min"]
      : a < 86_400
        ? [Math.floor(a / 3600), "h"]
        : [Math.floor(a / 86_400), Math.floor(a / 86_400) === 1 ? "day" : "days"];
  if (a >= 30 * 86_400) return null;
  return s >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}
