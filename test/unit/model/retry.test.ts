import { describe, expect, it } from "vitest";
import { isTransientModelFailure, modelFailure, redact } from "../../../shared/model/failure.ts";
import { type Attempt, parseRetryAfter, withRetry } from "../../../shared/model/retry.ts";
import type { ModelResult } from "../../../shared/model/types.ts";
import { recordingSleep } from "../../helpers/model-servers/recording-server.ts";

const okResult: ModelResult = {
  ok: true,
  turn: { text: "", toolCalls: [], stopReason: "end", usage: { inputTokens: 0, outputTokens: 0 } },
};

function sequence(results: Attempt[]) {
  let calls = 0;
  const attempt = async (): Promise<Attempt> => {
    const a = results[Math.min(calls, results.length - 1)];
    calls++;
    if (a === undefined) throw new Error("empty sequence");
    return a;
  };
  return { attempt, calls: () => calls };
}

describe("withRetry", () => {
  it("backs off exponentially with jitter inside [step/2, step]", async () => {
    const throttled = { result: modelFailure("model-throttled", "429", { retryable: true }) };
    for (const [random, expected] of [
      [0, [500, 1000, 2000]],
      [0.999999, [1000, 2000, 4000]],
    ] as const) {
      const slept = recordingSleep();
      const s = sequence([throttled]);
      await withRetry(s.attempt, { maxAttempts: 4, sleep: slept.sleep, random: () => random });
      expect(slept.delays).toEqual(expected);
      expect(s.calls()).toBe(4);
    }
  });

  it("caps each backoff step at maxDelayMs", async () => {
    const slept = recordingSleep();
    const s = sequence([{ result: modelFailure("model-throttled", "429", { retryable: true }) }]);
    await withRetry(s.attempt, {
      maxAttempts: 5,
      maxDelayMs: 3000,
      sleep: slept.sleep,
      random: () => 0.999999,
    });
    expect(slept.delays).toEqual([1000, 2000, 3000, 3000]);
  });

  it("does not retry auth, malformed, 4xx or timeouts", async () => {
    for (const f of [
      modelFailure("model-auth", "401", { retryable: false }),
      modelFailure("model-malformed-response", "x", { retryable: false }),
      modelFailure("model-http-error", "400", { retryable: false }),
      modelFailure("model-timeout", "t", { retryable: true }),
    ]) {
      const s = sequence([{ result: f }]);
      expect(await withRetry(s.attempt, { sleep: recordingSleep().sleep })).toEqual(f);
      expect(s.calls()).toBe(1);
    }
  });

  it("retries a retryable server error or a network error only once", async () => {
    for (const f of [
      modelFailure("model-http-error", "502", { retryable: true }),
      modelFailure("model-network", "ECONNRESET", { retryable: true }),
    ]) {
      const s = sequence([{ result: f }]);
      const result = await withRetry(s.attempt, { maxAttempts: 5, sleep: recordingSleep().sleep });
      expect(result).toMatchObject({ reason: f.reason, detail: `${f.detail} (after 2 attempts)` });
      expect(s.calls()).toBe(2);
    }
  });

  it("returns the first success", async () => {
    const s = sequence([
      { result: modelFailure("model-throttled", "429", { retryable: true }) },
      { result: okResult },
    ]);
    expect(await withRetry(s.attempt, { sleep: recordingSleep().sleep })).toEqual(okResult);
    expect(s.calls()).toBe(2);
  });
});

describe("parseRetryAfter", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }))).toBe(3000);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe("redact", () => {
  const key = "sk-live-ABCDEFGHIJKLMNOPQRSTUVWX";
  it("cuts exact keys and long fragments of them", () => {
    expect(redact(`bad key ${key}!`, [key])).toBe("bad key [redacted]!");
    expect(redact(`key ${key.slice(0, 14)}*** and ${key.slice(-13)}`, [key])).toBe(
      "key [redacted]*** and [redacted]",
    );
  });
  it("leaves short coincidences and empty secrets alone", () => {
    expect(redact("sk-live-ABC is a prefix", [key])).toBe("sk-live-ABC is a prefix");
    expect(redact("nothing", [""])).toBe("nothing");
  });
  it("bounds failure details", () => {
    expect(modelFailure("model-http-error", "x".repeat(5000), { retryable: false }).detail).toHaveLength(
      1003,
    );
  });
});

describe("isTransientModelFailure", () => {
  it("is computed from the reason, and the status of an HTTP error", () => {
    for (const r of ["model-throttled", "model-timeout", "model-network"] as const)
      expect(isTransientModelFailure(r)).toBe(true);
    for (const r of ["model-auth", "model-config", "model-malformed-response", "script-exhausted"] as const)
      expect(isTransientModelFailure(r)).toBe(false);
    expect(isTransientModelFailure("model-http-error", 502)).toBe(true);
    expect(isTransientModelFailure("model-http-error")).toBe(true);
    expect(isTransientModelFailure("model-http-error", 400)).toBe(false);
    expect(modelFailure("model-http-error", "x", { status: 503 }).retryable).toBe(true);
    expect(modelFailure("model-throttled", "x", { retryable: false }).retryable).toBe(false);
  });
});
