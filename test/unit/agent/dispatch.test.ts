import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { CallCheck } from "../../../shared/agent/loop/call-check.ts";
import { dispatchToolCall } from "../../../shared/agent/loop/dispatch.ts";
import { defineTool, type SideEffects, success, type Tool } from "../../../shared/tool-framework/tool.ts";
import { dispatchDeps, kit } from "./dispatch-harness.ts";

// The dispatcher's own refusals after the gates let a call through: what the tool does wrong (throws, answers too
// much) and a confirm tool with nowhere to go are failures the model reads, recorded like any other result.

/** A `lookup` tool granted to the run, answering what `answer` returns; `runs` counts its uses. */
function tool(answer: () => Promise<unknown>, sideEffects: SideEffects = { kind: "none" }) {
  const runs = { count: 0 };
  const lookup = defineTool({
    name: "lookup",
    description: "Test tool.",
    summary: "test",
    input: z.object({}).strict(),
    egress: { kind: "structure" },
    sideEffects,
    use: async () => {
      runs.count++;
      return success(await answer());
    },
  });
  return { lookup, runs };
}

function deps(t: { lookup: Tool }, checks: CallCheck[] = [], limits = {}) {
  return { ...dispatchDeps({ tools: [t.lookup], toolkits: [kit("k", ["lookup"])], checks }), limits };
}
const call = { id: "c1", name: "lookup", input: {} };

describe("dispatchToolCall: after the gates", () => {
  it("a tool that throws is a tool-error the model reads, recorded and cached, not a crashed round", async () => {
    const d = deps(
      tool(async () => {
        throw new Error("upstream down");
      }),
    );
    const result = await dispatchToolCall(call, d);
    expect(result).toEqual({ ok: false, reason: "tool-error", detail: "lookup failed: upstream down" });
    expect(d.events.map((e) => e.type)).toEqual(["tool-call", "tool-result"]);
    expect(d.events[1]?.data).toMatchObject({ ok: false, reason: "tool-error" });
    expect(d.results.get("run-1:1:c1")).toEqual(result);
  });

  it("a result over the size limit is refused before any result check sees it", async () => {
    const seen: string[] = [];
    const check: CallCheck = async (phase) => {
      seen.push(phase);
      return { ok: true };
    };
    const d = deps(
      tool(async () => ({ text: "x".repeat(200) })),
      [check],
      { maxResultBytes: 100 },
    );
    expect(await dispatchToolCall(call, d)).toEqual({
      ok: false,
      reason: "tool-result-too-large",
      detail: "result exceeded 100 bytes",
    });
    expect(seen).toEqual(["input"]);
    expect(d.events[1]?.data).toMatchObject({ ok: false, reason: "tool-result-too-large" });
  });

  it("a confirm tool without a proposer is refused and never runs (G14)", async () => {
    const t = tool(async () => ({}), { kind: "external", confirm: true });
    const d = deps(t);
    expect(await dispatchToolCall(call, d)).toMatchObject({ ok: false, reason: "tool-confirm-unavailable" });
    expect(t.runs.count).toBe(0);
  });
});
