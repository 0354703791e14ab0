import { describe, expect, it } from "vitest";
import { parseSchedule } from "../../../shared/agent/runs/schedule.ts";

const due = (expr: string, at: string) => {
  const s = parseSchedule(expr);
  if (!s.ok) throw new Error(s.reason);
  return s.isDue(new Date(at), 60_000)?.toISOString() ?? null;
};

describe("responsibility schedules", () => {
  it("rate(N unit) is due once per period", () => {
    expect(due("rate(1 minute)", "2026-11-29T12:00:30Z")).toBe("2026-11-29T12:00:00.000Z");
    expect(due("rate(15 minutes)", "2026-11-29T12:15:10Z")).toBe("2026-11-29T12:15:00.000Z");
    expect(due("rate(15 minutes)", "2026-11-29T12:16:10Z")).toBeNull();
    expect(due("rate(1 day)", "2026-11-29T00:00:59Z")).toBe("2026-11-29T00:00:00.000Z");
  });

  it("AWS cron translates day-of-week 1-7 = SUN-SAT and ? fields", () => {
    // 2026-11-30 is a Monday: AWS day 2.
    expect(due("cron(0 9 ? * 2 *)", "2026-11-30T09:00:20Z")).toBe("2026-11-30T09:00:00.000Z");
    expect(due("cron(0 9 ? * 2 *)", "2026-11-29T09:00:20Z")).toBeNull();
    expect(due("cron(0 9 ? * MON-FRI *)", "2026-11-30T09:00:20Z")).toBe("2026-11-30T09:00:00.000Z");
    expect(due("cron(30 8 1 * ? *)", "2026-12-01T08:30:00Z")).toBe("2026-12-01T08:30:00.000Z");
  });

  it.each([
    ["cron(0 9 * * ? 2027)", "cron-year-unsupported"],
    ["cron(0 9 * *)", "cron-needs-six-fields"],
    ["cron(0 9 ? * 0 *)", "cron-day-of-week"],
    ["rate(1 minutes)", "rate-unit-plural-mismatch"],
    ["rate(5 minute)", "rate-unit-plural-mismatch"],
    ["every day", "schedule-syntax"],
  ])("refuses %s", (expr, reason) => {
    expect(parseSchedule(expr)).toEqual({ ok: false, reason });
  });
});
