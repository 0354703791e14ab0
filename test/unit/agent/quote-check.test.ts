import { describe, expect, it } from "vitest";
import { dispatchToolCall } from "../../../shared/agent/dispatch.ts";
import { quoteCheck } from "../../../shared/agent/quote-check.ts";
import { recordFactTool } from "../../../shared/tool-framework/builtin/record-fact.ts";
import type { ToolContext } from "../../../shared/tool-framework/context.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";
import { dispatchDeps, kit } from "./dispatch-harness.ts";

const untrusted = "Hello,\nmy order 1234 arrived\u00a0broken   and I want a refund.\u200b Thanks";

async function record(evidence: string) {
  const recorded: string[] = [];
  const deps = dispatchDeps({
    tools: [recordFactTool],
    toolkits: [kit("k", ["record_fact"])],
    checks: [quoteCheck({ registry: new ToolRegistry([recordFactTool]), untrustedText: untrusted })],
  });
  deps.makeContext = () =>
    ({
      idempotencyKey: "k1",
      facts: {
        record: async (f: { fact: string }) => {
          recorded.push(f.fact);
          return { id: "f1", duplicate: false };
        },
        list: async () => [],
      },
    }) as unknown as ToolContext;
  const result = await dispatchToolCall(
    { id: "c1", name: "record_fact", input: { fact: "order broken", evidence } },
    deps,
  );
  return { result, recorded };
}

describe("quote check (G15)", () => {
  it("a real quote passes, across re-wrapped whitespace and invisible characters", async () => {
    const { result, recorded } = await record("order 1234 arrived broken and I want");
    expect(result).toMatchObject({ ok: true });
    expect(recorded).toEqual(["order broken"]);
  });

  it("an invented fact is refused and nothing is recorded", async () => {
    const { result, recorded } = await record("order 1234 arrived in perfect condition");
    expect(result).toMatchObject({ ok: false, reason: "evidence-not-quoted" });
    expect(recorded).toEqual([]);
  });

  it("a one-character span is refused", async () => {
    expect((await record("o")).result).toMatchObject({ ok: false, reason: "evidence-too-short" });
    expect((await record("refund.")).result).toMatchObject({ ok: false, reason: "evidence-too-short" });
  });
});
