import type { Context } from "hono";
import type { ConsoleEnv } from "../env.ts";
import { currentTimeView } from "../views/time-view.ts";

/** Messages after a redirect, from a fixed list: nothing a request can choose the wording of. */
export const FLASH: Record<string, string> = {
  saved: "Saved.",
  removed: "Removed.",
  queued:
    "Decision sent: the plan is checked and applied (or cancelled) by the same path as a mailed confirmation.",
  "already-decided": "This plan was already decided in the console: nothing was done.",
  "not-pending": "This plan is no longer pending: nothing was done.",
  "not-approver": "Only an approver of this plan can decide it: nothing was done.",
  expired: "This plan has expired: nothing was done.",
  "no-plan": "No such plan.",
  "not-removed": "Nothing was removed: confirm the removal on its page.",
  "test-queued":
    "Test event queued: its delivery appears under the endpoint within seconds (reload the page to see it).",
};

export const ctxOf = (c: Context<ConsoleEnv>) => ({
  principal: c.get("principal"),
  csrf: c.get("csrf"),
  flash: FLASH[c.req.query("done") ?? ""],
  zone: currentTimeView()?.zone ?? "UTC",
});

export const limitOf = (c: Context<ConsoleEnv>) => Number(c.req.query("limit") ?? 25);
export const today = (d: Date) => d.toISOString().slice(0, 10);
