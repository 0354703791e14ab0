import { describe, expect, it } from "vitest";
import { failureBlocks, fitLine } from "../../../cli/failures-view.ts";
import type { FailureEntry } from "../../../shared/ports/index.ts";
import { timeline } from "../../../shared/trace/index.ts";

// Findings 10 and 17 of issue 31 item 7: `runs show` cut an event's data without saying so, and `runs failures`
// printed a ~230-column table.
const failure = (over: Partial<FailureEntry> = {}): FailureEntry => ({
  at: "2026-12-04T21:34:18.597Z",
  class: "send-failed",
  reason: "recipient-invalid",
  agent: "helpdesk@demo.postern.test",
  runId: "run-4d5962ac51c932e1fcbf14b7",
  requestId: "req-4d5962ac51c932e1fcbf14b7-reply-00000001",
  senderNotice: "already-today",
  detail: `Email address is not verified. The following identities failed the check in region US-EAST-1: ${"x".repeat(200)}@unverified.postern.test`,
  ...over,
});

describe("runs failures fits 100 columns", () => {
  it("one block per failure, every line at most 100 characters, a cut one ending in …", () => {
    const out = failureBlocks([failure(), failure({ runId: undefined, detail: undefined })]);
    const lines = out.split("\n");
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(lines[0]).toBe("2026-12-04 21:34:18  send-failed  recipient-invalid");
    expect(lines[1]).toBe("  agent helpdesk@demo.postern.test  sender told: already-today");
    // Ids whole, never cut: what an operator copies into `runs show`.
    expect(lines[2]).toBe(
      "  run run-4d5962ac51c932e1fcbf14b7  request req-4d5962ac51c932e1fcbf14b7-reply-00000001",
    );
    expect(lines[3]?.endsWith("…")).toBe(true);
    expect(lines[3]).toContain("Email address is not verified");
    // The second failure has no run and no detail: agent and request only, and no empty "run" label.
    expect(out.split("\n\n")[1]?.split("\n")).toHaveLength(3);
    expect(out.split("\n\n")[1]).not.toContain(" run ");
  });

  it("cuts with an ellipsis only what is too long", () => {
    expect(fitLine("short", 10)).toBe("short");
    expect(fitLine("0123456789A", 10)).toBe("012345678…");
    expect(fitLine("two\nlines", 20)).toBe("two⏎lines");
    // SES's or a provider's words: a control sequence cannot drive the terminal.
    expect(fitLine("bad\u001b[2Jnews", 20)).not.toContain("\u001b");
  });
});

describe("runs show says where it cut", () => {
  it("an event shown by its data ends in … when the data is longer than the line", () => {
    const [item] = timeline([
      {
        runId: "r",
        seq: 1,
        round: 1,
        type: "something-new",
        at: "2026-12-04T21:34:18.000Z",
        data: { v: "y".repeat(300) },
      },
    ]);
    expect(item?.text.length).toBe("something-new ".length + 200);
    expect(item?.text.endsWith("…")).toBe(true);
    const [short] = timeline([
      { runId: "r", seq: 1, round: 1, type: "something-new", at: "2026-12-04T21:34:18.000Z", data: { v: 1 } },
    ]);
    expect(short?.text).toBe('something-new {"v":1}');
  });
});
