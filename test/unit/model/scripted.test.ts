import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScript, parseScript, ScriptError } from "../../../shared/model/script.ts";
import { scriptedModel } from "../../../shared/model/scripted.ts";
import type { Message, ModelRequest } from "../../../shared/model/types.ts";

const demo = {
  turns: [{ toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Hello" } }] }, { text: "done" }],
};

function request(messages: Message[]): ModelRequest {
  return { system: "sys", tools: [], maxTokens: 100, messages };
}
const user: Message = { role: "user", content: [{ type: "text", text: "hi" }] };
const assistant: Message = { role: "assistant", text: "", toolCalls: [] };

describe("model script validation", () => {
  it("accepts the issue's example script and fills defaults", () => {
    expect(parseScript(demo).turns).toEqual([
      { text: "", toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Hello" } }] },
      { text: "done", toolCalls: [] },
    ]);
  });

  it.each([
    [{ turns: [] }, "turns: a script needs at least one turn"],
    [{ turns: [{ toolCalls: [{ input: {} }] }] }, "turns.0.toolCalls.0.name:"],
    [{ turns: [{ toolcalls: [] }] }, 'turns.0: Unrecognized key: "toolcalls"'],
    [{ turns: [{ text: 3 }] }, "turns.0.text:"],
    [{ turns: [{ toolCalls: [{ name: "x", args: {} }] }] }, 'turns.0.toolCalls.0: Unrecognized key: "args"'],
    [{ turns: [{ fail: { reason: "boom" } }] }, "turns.0.fail.reason:"],
    [{ steps: [] }, "turns:"],
  ])("rejects %j naming the field", (raw, expected) => {
    expect(() => parseScript(raw, "demo-script.json")).toThrow(ScriptError);
    try {
      parseScript(raw, "demo-script.json");
    } catch (err) {
      expect((err as Error).message).toContain("demo-script.json is not a valid model script");
      expect((err as ScriptError).problems.join("\n")).toContain(expected);
    }
  });

  it("reports an unreadable or non-JSON file with its path", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-script-"));
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{ turns: ");
    expect(() => loadScript(bad)).toThrow(/bad\.json is not a valid model script:\n {2}- not valid JSON/);
    expect(() => loadScript(join(dir, "missing.json"))).toThrow(/cannot read the file \(ENOENT\)/);
  });
});

describe("scripted model", () => {
  const model = scriptedModel(parseScript(demo));

  it("replays turn 0 for a fresh transcript, with deterministic call ids", async () => {
    const result = await model.generate(request([user]));
    expect(result.ok && result.turn.toolCalls).toEqual([
      { id: "call_0_0", name: "send_email", input: { mode: "reply", body: "Hello" } },
    ]);
    expect(result.ok && result.turn.stopReason).toBe("tool_use");
  });

  it("chooses the turn by the number of assistant turns in the transcript", async () => {
    const result = await model.generate(request([user, assistant, user]));
    expect(result.ok && result.turn).toMatchObject({ text: "done", toolCalls: [], stopReason: "end" });
  });

  it("gives the same answer for the same transcript (a redelivered round)", async () => {
    const a = await model.generate(request([user]));
    const b = await model.generate(request([user]));
    expect(a).toEqual(b);
    expect(a.ok && a.turn.usage.inputTokens).toBeGreaterThan(0);
  });

  it("fails script-exhausted past the end", async () => {
    expect(await model.generate(request([user, assistant, user, assistant, user]))).toEqual({
      ok: false,
      reason: "script-exhausted",
      detail: "the script has 2 turn(s); turn 2 was requested (2 assistant turns in the transcript)",
      retryable: false,
    });
  });

  it("replays scripted failures, malformed inputs, explicit ids, stop reasons and usage", async () => {
    const drill = scriptedModel(
      parseScript({
        turns: [
          { fail: { reason: "model-throttled", retryable: true } },
          {
            toolCalls: [
              { name: "x", malformedInput: "{oops" },
              { name: "y", id: "dup" },
            ],
            stopReason: "max_tokens",
            usage: { inputTokens: 7, outputTokens: 9 },
          },
        ],
      }),
    );
    expect(await drill.generate(request([user]))).toEqual({
      ok: false,
      reason: "model-throttled",
      detail: "scripted failure",
      retryable: true,
    });
    expect(await drill.generate(request([user, assistant]))).toEqual({
      ok: true,
      turn: {
        text: "",
        toolCalls: [
          {
            id: "call_1_0",
            name: "x",
            input: undefined,
            malformedInput: { raw: "{oops", error: "scripted malformed input" },
          },
          { id: "dup", name: "y", input: {} },
        ],
        stopReason: "max_tokens",
        usage: { inputTokens: 7, outputTokens: 9 },
      },
    });
  });
});

describe("a scripted turn's cases (chosen by the engine's words, e.g. an approved plan's outcome line)", () => {
  const model = scriptedModel(
    parseScript({
      turns: [
        {
          text: "no case matched",
          cases: [
            { whenLastTurnStartsWith: "Plan outcome: applied.", turn: { text: "issued" } },
            { whenLastTurnStartsWith: "Plan outcome: failed", turn: { text: "not issued" } },
          ],
        },
      ],
    }),
  );
  const said = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
  const answer = async (m: Message) => {
    const r = await model.generate(request([m]));
    return r.ok ? r.turn.text : r.reason;
  };

  it("the first case whose text starts the last user turn replaces the turn", async () => {
    expect(await answer(said("Plan outcome: applied. Approved by boss@x.example"))).toBe("issued");
    expect(await answer(said("Plan outcome: failed (order-not-found). Approved by ..."))).toBe("not issued");
  });

  it("text elsewhere in the turn chooses nothing: the turn itself answers", async () => {
    expect(await answer(said('Results: [{"data":"Plan outcome: applied."}]'))).toBe("no case matched");
    expect(await answer(said(" Plan outcome: applied."))).toBe("no case matched");
  });

  it("a case is a plain turn: cases do not nest", () => {
    expect(() =>
      parseScript({
        turns: [
          {
            cases: [
              { whenLastTurnStartsWith: "x", turn: { cases: [{ whenLastTurnStartsWith: "y", turn: {} }] } },
            ],
          },
        ],
      }),
    ).toThrow(ScriptError);
  });
});
