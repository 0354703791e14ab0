import { Cron } from "croner";
import { type Fail, fail, type Ok } from "../../result.ts";

/**
 * Responsibility schedules in EventBridge Scheduler syntax, evaluated against a minute tick. AWS cron has six
 * fields (minutes hours day-of-month month day-of-week year) with day-of-week 1-7 = SUN-SAT; croner wants seconds
 * first and 0-6 = SUN-SAT, so the expression is translated, and anything we cannot translate exactly is refused
 * rather than run on a guessed schedule.
 */
export type ScheduleReason =
  | "rate-unit-plural-mismatch"
  | "schedule-syntax"
  | "cron-needs-six-fields"
  | "cron-year-unsupported"
  | "cron-day-of-week"
  | "cron-invalid";

export type Schedule = Ok<{ isDue(at: Date, windowMs: number): Date | null }> | Fail<ScheduleReason>;

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

export function parseSchedule(expr: string): Schedule {
  const rate = RATE.exec(expr);
  if (rate) {
    const n = Number(rate[1]);
    const unit = rate[2]?.replace(/s$/, "") as keyof typeof UNIT_MS;
    // EventBridge insists on "1 minute" but "5 minutes": accept exactly what it accepts.
    if (n < 1 || (n === 1) !== (rate[2] === unit)) {
      return fail("rate-unit-plural-mismatch");
    }
    const period = n * UNIT_MS[unit];
    return {
      ok: true,
      // Due at every multiple of the period since the epoch that falls in (at - window, at].
      isDue(at, windowMs) {
        const due = Math.floor(at.getTime() / period) * period;
        return due > at.getTime() - windowMs ? new Date(due) : null;
      },
    };
  }
  const cron = /^cron\((.+)\)$/.exec(expr);
  if (!cron?.[1]) return fail("schedule-syntax");
  const fields = cron[1].trim().split(/\s+/);
  if (fields.length !== 6) return fail("cron-needs-six-fields");
  const [min, hour, dom, mon, dow, year] = fields as [string, string, string, string, string, string];
  if (year !== "*") return fail("cron-year-unsupported");
  const dowCroner = dow === "?" ? "*" : dow.replace(/\d+/g, (d) => String(Number(d) - 1));
  if (/(^|[^A-Z])-1/.test(dowCroner)) return fail("cron-day-of-week");
  let job: Cron;
  try {
    job = new Cron(`0 ${min} ${hour} ${dom === "?" ? "*" : dom} ${mon} ${dowCroner}`, {
      timezone: "UTC",
      paused: true,
      legacyMode: false,
    });
  } catch {
    return fail("cron-invalid");
  }
  return {
    ok: true,
    isDue(at, windowMs) {
      const next = job.nextRun(new Date(at.getTime() - windowMs));
      return next && next.getTime() <= at.getTime() ? next : null;
    },
  };
}
