import { describe, expect, it } from "vitest";
import { takeOverReport } from "../../../cli/local/take-over.ts";

// Finding 7 of issue 31 item 7: a restart printed `took over ... {"messagesReturned":1,"roundsReleased":2,...}`.
describe("the restart's take-over line", () => {
  it("is one sentence naming only what happened", () => {
    expect(takeOverReport({ messagesReturned: 1, roundsReleased: 2, sendsUnknown: 0 })).toBe(
      "took over from the stack that stopped: 1 queued mail or step it was handling handed back now; " +
        "2 agent rounds it had claimed released to run again",
    );
    const all = takeOverReport({ messagesReturned: 3, roundsReleased: 1, sendsUnknown: 1 }) ?? "";
    expect(all).toContain(
      "1 send it left mid-way marked unknown (never sent twice; npx postern outbound unknown lists them)",
    );
    expect(all).not.toMatch(/[{}]|roundsReleased|messagesReturned/);
    expect(all.split("\n")).toHaveLength(1);
  });

  it("says nothing when there was nothing to take over", () => {
    expect(takeOverReport({ messagesReturned: 0, roundsReleased: 0, sendsUnknown: 0 })).toBeNull();
  });
});
