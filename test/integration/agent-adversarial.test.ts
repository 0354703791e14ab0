import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { MAX_CALL_ID_CHARS } from "../../shared/agent/loop/dispatch.ts";
import type { StepOutcome } from "../../shared/agent/loop/round.ts";
import { MAX_CALLS_PER_ROUND } from "../../shared/agent/loop/run-tool-calls.ts";
import { runStep } from "../../shared/agent/loop/step.ts";
import { modelFailure } from "../../shared/model/failure.ts";
import { scriptTurnIndex } from "../../shared/model/scripted.ts";
import type { ModelProvider } from "../../shared/model/types.ts";
import { defineTool, success, type Tool } from "../../shared/tool-framework/tool.ts";
import { counterTool, type Harness, scripted, startHarness } from "../helpers/agent-harness.ts";

/**
 * An adversarial model against the real step loop over the emulators (G10, G11): whatever it emits, no gate is
 * bypassed, the run ends within its bounds, and every dispatched call leaves an event. The expected outcome of
 * each script is computed independently below and compared with what the loop did.
 */

const MAX_TURNS = 3;
/** Redeliveries the driver grants one round after a retryable model failure (SQS would redrive, then DLQ). */
const MAX_RETRIES = 3;
const GRANTED = "lookup";
const REGISTERED = new Set([GRANTED, "hidden", "orphan"]);

/** The granted tool's schema admits notes far past the dispatcher's 256 KB input cap: only the cap refuses them. */
function grantedTool(counts: Map<string, number>): Tool {
  return defineTool({
    name: GRANTED,
    description: "Look something up.",
    summary: "test side effect",
    input: z.object({ note: z.string().max(1_000_000).optional() }).strict(),
    egress: { kind: "structure" },
    sideEffects: { kind: "internal" },
    async use() {
      counts.set(GRANTED, (counts.get(GRANTED) ?? 0) + 1);
      return success({ ran: GRANTED });
    },
  });
}

type Kind = "valid" | "hidden" | "orphan" | "unknown" | "invalid" | "malformed";
interface GenCall {
  readonly kind: Kind;
  readonly name: string;
  readonly input?: unknown;
  readonly id?: string;
  readonly malformedInput?: string;
}
type GenTurn =
  | { readonly calls: readonly GenCall[]; readonly transient: number; readonly text: string }
  | { readonly fail: { readonly retryable: boolean } };

const callId = fc.option(
  fc.oneof(
    fc.constantFrom("dup-1", "dup-2"),
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.constant("i".repeat(3000)),
  ),
  { nil: undefined, freq: 2 },
);
const weirdName = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
    fc.constantFrom(
      "LOOKUP",
      "lookup ",
      " lookup",
      "ｌｏｏｋｕｐ",
      "look\u200bup",
      "lookup\u0000",
      "send_email",
      "__proto__",
      "constructor",
      "hasOwnProperty",
      "hidden\n",
      "../orphan",
      "*",
    ),
    fc.integer({ min: 1000, max: 5000 }).map((n) => "x".repeat(n)),
  )
  .filter((n) => !REGISTERED.has(n));
const validInput = fc.oneof(
  fc.constant({}),
  fc.record({ note: fc.string({ maxLength: 100 }) }),
  fc.constant({ note: "n".repeat(60_000) }),
);
// (null is not here: the script format reads a null or missing input as `{}`.)
const invalidInput = fc.oneof(
  fc.constant([]),
  fc.constant("lookup"),
  fc.integer(),
  fc.record({ note: fc.integer() }),
  fc.record({ extra: fc.string() }),
  fc.constant({ note: { nested: [1, 2, 3] } }),
  fc.constant({ note: "h".repeat(300 * 1024) }),
);
const withId = (c: Omit<GenCall, "id">) => callId.map((id): GenCall => (id ? { ...c, id } : c));
const call: fc.Arbitrary<GenCall> = fc.oneof(
  validInput.chain((input) => withId({ kind: "valid", name: GRANTED, input })),
  fc.constant<GenCall>({ kind: "hidden", name: "hidden", input: {} }),
  fc.constant<GenCall>({ kind: "orphan", name: "orphan", input: {} }),
  weirdName.chain((name) => withId({ kind: "unknown", name, input: {} })),
  invalidInput.chain((input) => withId({ kind: "invalid", name: GRANTED, input })),
  fc
    .tuple(fc.constantFrom(GRANTED, "hidden", "nope"), fc.string({ maxLength: 30 }))
    .chain(([name, raw]) => withId({ kind: "malformed", name, malformedInput: `{${raw}` })),
);
const turn: fc.Arbitrary<GenTurn> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      calls: fc.array(call, { maxLength: 20 }),
      transient: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 2 })),
      text: fc.string({ maxLength: 50 }),
    }),
  },
  {
    // A runaway turn: more calls than one round runs.
    weight: 1,
    arbitrary: fc.record({
      calls: fc.array(call, { minLength: MAX_CALLS_PER_ROUND + 1, maxLength: 20 }),
      transient: fc.constant(0),
      text: fc.constant(""),
    }),
  },
  { weight: 1, arbitrary: fc.record({ fail: fc.record({ retryable: fc.boolean() }) }) },
);
const script = fc.array(turn, { minLength: 1, maxLength: MAX_TURNS + 5 });

function toScript(turns: readonly GenTurn[]): unknown[] {
  return turns.map((t) =>
    "fail" in t
      ? { fail: { reason: t.fail.retryable ? "model-throttled" : "model-http-error", ...t.fail } }
      : { text: t.text, toolCalls: t.calls.map(({ kind: _kind, ...c }) => c) },
  );
}

interface Expected {
  readonly end: "completed" | "turn-limit" | "failed" | "stuck-retrying";
  readonly granted: number;
  readonly modelCalls: number;
  /** Calls handed to dispatch per round (at most MAX_CALLS_PER_ROUND each). */
  readonly dispatched: readonly number[];
}

/** What the loop must do with this script, derived from the script alone. */
function expectedOf(turns: readonly GenTurn[]): Expected {
  let granted = 0;
  let modelCalls = 0;
  const dispatched: number[] = [];
  for (let round = 1; ; round++) {
    const t = turns[round - 1];
    if (!t) return { end: "failed", granted, modelCalls: modelCalls + 1, dispatched }; // script-exhausted
    if ("fail" in t) {
      if (!t.fail.retryable) return { end: "failed", granted, modelCalls: modelCalls + 1, dispatched };
      return { end: "stuck-retrying", granted, modelCalls: modelCalls + MAX_RETRIES + 1, dispatched };
    }
    modelCalls += t.transient + 1;
    if (t.calls.length === 0) return { end: "completed", granted, modelCalls, dispatched };
    const run = t.calls.slice(0, MAX_CALLS_PER_ROUND);
    dispatched.push(run.length);
    // A repeated call id within a round is refused (it would share the first call's idempotency key); an
    // oversized id is refused (it would not fit the key). Only a valid call with a first-seen id runs.
    const seen = new Set<string>();
    run.forEach((c, i) => {
      const id = c.id ?? `call_${round - 1}_${i}`;
      const first = !seen.has(id);
      seen.add(id);
      if (first && c.kind === "valid" && id.length <= MAX_CALL_ID_CHARS) granted++;
    });
    if (round >= MAX_TURNS) return { end: "turn-limit", granted, modelCalls, dispatched };
  }
}

/** A scripted model that also throttles the first `transient` requests of a turn (retry, then succeed). */
function adversary() {
  let state = {
    turns: [] as readonly GenTurn[],
    seen: new Map<number, number>(),
    calls: 0,
    offered: [] as string[][],
  };
  const model: ModelProvider = {
    name: "adversary",
    capabilities: { supportsImages: true, supportsDocuments: true },
    async generate(req) {
      state.calls++;
      state.offered.push(req.tools.map((t) => t.name));
      const i = scriptTurnIndex(req);
      const t = state.turns[i];
      const n = state.seen.get(i) ?? 0;
      if (t && "transient" in t && n < t.transient) {
        state.seen.set(i, n + 1);
        return modelFailure("model-throttled", "scripted throttle", { retryable: true });
      }
      return scripted(toScript(state.turns)).generate(req);
    },
  };
  return {
    model,
    load(turns: readonly GenTurn[]) {
      state = { turns, seen: new Map(), calls: 0, offered: [] };
    },
    calls: () => state.calls,
    /** The tool names offered in each model request since the last load. */
    offered: () => state.offered,
  };
}

async function drive(h: Harness, runId: string): Promise<StepOutcome[]> {
  const outcomes: StepOutcome[] = [];
  let message = await h.queued(runId, 1);
  let retries = 0;
  for (;;) {
    const o = await runStep(message, h.deps);
    outcomes.push(o);
    if (o.status === "retry" && retries++ < MAX_RETRIES) continue;
    if (o.status !== "continued") return outcomes;
    expect(o.next).toBe(message.round + 1);
    // As the queue delivers it: the next round's message carries this round's tool results.
    message = await h.queued(runId, o.next);
    retries = 0;
  }
}

describe("adversarial scripted model (local stack)", () => {
  const counts = new Map<string, number>();
  const adv = adversary();
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      tools: [grantedTool(counts), counterTool("hidden", counts), counterTool("orphan", counts)],
      toolkits: [
        { id: "kit", tools: [GRANTED] },
        // Registered and in a toolkit attached to the agent, but its sender gate refuses this run's sender.
        { id: "staff", tools: ["hidden"], senderRules: [{ pattern: "*@staff.example", effect: "allow" }] },
      ],
      model: adv.model,
      maxToolTurns: MAX_TURNS,
      // Redeliveries after a retryable failure must be able to re-claim the round at once.
      leaseMs: 1,
      budgets: { runsPerSenderPerDay: 100_000, tokensPerSenderPerDay: 1_000_000_000 },
    });
  });
  afterAll(() => h?.stop());

  it("whatever the model emits: no gate bypassed, bounded, every call recorded", async () => {
    await fc.assert(
      fc.asyncProperty(script, async (turns) => {
        counts.clear();
        adv.load(turns);
        const want = expectedOf(turns);
        const runId = await h.startReplyRun();
        const outcomes = await drive(h, runId);
        const last = outcomes.at(-1);

        // Gates: nothing hidden ran; the granted tool ran exactly once per distinct valid call.
        expect(counts.get("hidden") ?? 0).toBe(0);
        expect(counts.get("orphan") ?? 0).toBe(0);
        expect(counts.get(GRANTED) ?? 0).toBe(want.granted);

        // Bounds: rounds, model calls, and how the run ended.
        const rounds = outcomes.filter((o) => o.status === "continued").length + 1;
        expect(rounds).toBeLessThanOrEqual(MAX_TURNS);
        expect(adv.calls()).toBe(want.modelCalls);
        const run = await h.deps.stores.runs.get(runId);
        if (want.end === "stuck-retrying") {
          expect(last).toMatchObject({ status: "retry" });
          expect(run?.state).toBe("running");
        } else {
          expect(last).toMatchObject({ status: "finished", state: want.end });
          expect(run?.state).toBe(want.end);
        }

        // Trace: every model call, every dispatched call and the end are events.
        const events = await h.deps.stores.runEvents.list(runId);
        const of = (type: string, round?: number) =>
          events.filter((e) => e.type === type && (round === undefined || e.round === round)).length;
        // Each model call is a request that passed the budget (a refusal would be a budget-check event).
        expect(events.filter((e) => e.type === "model-request" && e.data.budget === "ok")).toHaveLength(
          want.modelCalls,
        );
        expect(of("budget-check")).toBe(0);
        expect(of("model-turn") + of("model-failure")).toBe(want.modelCalls);
        expect(of("run-finished")).toBe(want.end === "stuck-retrying" ? 0 : 1);
        want.dispatched.forEach((n, i) => {
          const round = i + 1;
          expect(of("tool-call", round)).toBe(of("tool-result", round));
          expect(of("tool-refused", round) + of("tool-result", round) + of("tool-replayed", round)).toBe(n);
        });
        const ran = events.filter((e) => e.type === "tool-call").map((e) => e.data.name);
        expect(ran.every((n) => n === GRANTED)).toBe(true);
        expect(ran).toHaveLength(want.granted);

        // The model reads an answer to every call it made, dispatched or not.
        const transcript = await h.deps.transcripts.load(runId);
        const messages = transcript?.messages ?? [];
        messages.forEach((m, i) => {
          if (m.role !== "assistant" || m.toolCalls.length === 0) return;
          const answer = messages[i + 1];
          expect(answer?.role === "tool" && answer.results.map((r) => r.toolCallId)).toEqual(
            m.toolCalls.map((c) => c.id),
          );
        });
      }),
      { numRuns: 20, interruptAfterTimeLimit: 40_000, markInterruptAsFailure: false },
    );
  }, 60_000);

  it("a staff member replying inside a customer's thread unlocks tools for that run only", async () => {
    const callHidden: GenTurn[] = [
      { calls: [{ kind: "hidden", name: "hidden", input: {} }], transient: 0, text: "" },
      { calls: [], transient: 0, text: "done" },
    ];
    const thread = "t-order-1234";
    const runIn = async (from: string) => {
      counts.clear();
      adv.load(callHidden);
      const runId = await h.startReplyRun({ from, threadId: thread });
      await drive(h, runId);
      const refused = (await h.deps.stores.runEvents.list(runId)).filter((e) => e.type === "tool-refused");
      return {
        offered: adv.offered()[0],
        ran: counts.get("hidden") ?? 0,
        refused: refused.map((e) => e.data.reason),
      };
    };
    // The customer, then staff in the same thread, then the customer again: each run is gated by its own sender.
    expect(await runIn("alice@example.com")).toEqual({
      offered: [GRANTED],
      ran: 0,
      refused: ["tool-sender-denied"],
    });
    expect(await runIn("Dana+support@Staff.example")).toEqual({
      offered: ["hidden", GRANTED],
      ran: 1,
      refused: [],
    });
    expect(await runIn("alice@example.com")).toEqual({
      offered: [GRANTED],
      ran: 0,
      refused: ["tool-sender-denied"],
    });
  });
});
