import { describe, expect, it } from "vitest";
import { runCallChecks } from "../../../shared/agent/loop/call-checks.ts";
import { dispatchToolCall } from "../../../shared/agent/loop/dispatch.ts";
import { acceptedText, quoteCheck } from "../../../shared/agent/loop/quote-check.ts";
import type { Message } from "../../../shared/model/types.ts";
import { recordFactTool } from "../../../shared/tool-framework/builtin/record-fact.ts";
import type { ToolContext } from "../../../shared/tool-framework/context.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";
import { agent, config, replyRun } from "../../fakes/builders.ts";
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

describe("acceptedText: what a run may quote (G15)", () => {
  const fence = (direction: "in" | "out", body: string, nonce = "cd".repeat(12)) => ({
    id: "m1",
    direction,
    text: [
      `<<<UNTRUSTED MAIL ${nonce}>>>`,
      ...body.split("\n").map((l) => `| ${l}`),
      `<<<END UNTRUSTED MAIL ${nonce}>>>`,
    ].join("\n"),
  });
  const turn = (calls: { id: string; name: string }[]): Message => ({
    role: "assistant",
    text: "",
    toolCalls: calls.map((c) => ({ ...c, input: {} })),
  });
  const results = (...rs: { id: string; value: unknown; isError?: boolean }[]): Message => ({
    role: "tool",
    results: rs.map((r) => ({
      toolCallId: r.id,
      isError: r.isError ?? false,
      content: { type: "json", value: r.value },
    })),
  });

  it("adds what read_email showed of inbound mail, without the fence's prefixes", () => {
    const text = acceptedText({
      untrustedText: "ROUND-ONE",
      messages: [
        turn([{ id: "c1", name: "read_email" }]),
        results({ id: "c1", value: fence("in", "LATER TEXT\nNEXT LINE") }),
      ],
    });
    expect(text).toBe("ROUND-ONE\nLATER TEXT\nNEXT LINE");
  });

  it("never adds the agent's own replies, failures, other tools' text, or a result paired with another call", () => {
    const text = acceptedText({
      untrustedText: "ROUND-ONE",
      messages: [
        turn([
          { id: "c1", name: "read_email" },
          { id: "c2", name: "web_fetch" },
          { id: "c3", name: "read_email" },
        ]),
        results(
          { id: "c1", value: fence("out", "AGENT-WROTE") },
          { id: "c2", value: fence("in", "WEB-PAGE") },
          { id: "c3", value: fence("in", "FAILED"), isError: true },
        ),
        // A later turn reuses "c2" for read_email: only that turn's result counts as read_email's.
        turn([{ id: "c2", name: "read_email" }]),
        results({ id: "c2", value: { ...fence("in", "UNFENCED"), text: "| no fence here" } }),
      ],
    });
    expect(text).toBe("ROUND-ONE");
  });
});

describe("the run's quote check takes what read_email showed (G15)", () => {
  const registry = new ToolRegistry([recordFactTool]);
  const checks = runCallChecks({
    config: config(),
    registry,
    channel: { close: async () => {}, isClosed: async () => false },
  });
  const nonce = "ef".repeat(12);
  const transcript = (later: Message[]) => ({
    system: "s",
    lastRound: 1,
    untrustedText: "the first part of the mail",
    messages: later,
  });
  const readOn: Message[] = [
    { role: "assistant", text: "", toolCalls: [{ id: "r1", name: "read_email", input: { offset: 64000 } }] },
    {
      role: "tool",
      results: [
        {
          toolCallId: "r1",
          isError: false,
          content: {
            type: "json",
            value: {
              direction: "in",
              text: `<<<UNTRUSTED MAIL ${nonce}>>>\n| the order number is 98765\n<<<END UNTRUSTED MAIL ${nonce}>>>`,
            },
          },
        },
      ],
    },
  ];
  const quote = async (t: ReturnType<typeof transcript>) => {
    for (const check of checks(replyRun(), t, agent())) {
      const v = await check("input", {
        name: "record_fact",
        input: { fact: "order", evidence: "the order number is 98765" },
        grantedBy: [],
      });
      if (!v.ok) return v.reason;
    }
    return "ok";
  };

  it("a quote of a later slice passes once read_email showed it, and not before", async () => {
    expect(await quote(transcript([]))).toBe("evidence-not-quoted");
    expect(await quote(transcript(readOn))).toBe("ok");
  });
});
