import { describe, expect, it } from "vitest";
import type { ThreadActivityLog } from "../../shared/agent/ports.ts";
import { fresh } from "./ids.ts";

/** What an agent did in a thread (shared/agent/ports.ts ThreadActivityLog), shown to its later runs in the thread. */
export function threadActivityContract(make: () => ThreadActivityLog | Promise<ThreadActivityLog>): void {
  describe("ThreadActivityLog", () => {
    it("records a call once, lists a thread's calls oldest first, and keeps agents and threads apart", async () => {
      const log = await make();
      const agent = `${fresh("a")}@x.example`;
      const entry = (at: string, runId: string, tool: string, ok = true) => ({ at, runId, tool, ok });
      await log.record(agent, "t1", "c2", entry("2026-11-29T12:02:00Z", "run-b", "search_emails"));
      await log.record(agent, "t1", "c1", {
        ...entry("2026-11-29T12:01:00Z", "run-a", "issue_refund", false),
        reason: "plan-closed",
      });
      await log.record(agent, "t1", "c1", entry("2026-11-29T12:09:00Z", "run-a", "rewritten"));
      await log.record(agent, "t2", "c1", entry("2026-11-29T12:03:00Z", "run-c", "other_thread"));
      await log.record(
        `${fresh("b")}@x.example`,
        "t1",
        "c9",
        entry("2026-11-29T12:04:00Z", "run-d", "other_agent"),
      );
      expect(await log.list(agent, "t1")).toEqual([
        {
          at: "2026-11-29T12:01:00Z",
          runId: "run-a",
          tool: "issue_refund",
          ok: false,
          reason: "plan-closed",
        },
        { at: "2026-11-29T12:02:00Z", runId: "run-b", tool: "search_emails", ok: true },
      ]);
      expect(await log.list(agent, "none")).toEqual([]);
    });
  });
}
