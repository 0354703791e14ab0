import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { NewRun } from "../../shared/ports/runs.ts";
import { DynamoRoundLedger } from "../../shared/store/round-ledger.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";

let em: Emulators;
let clients: AwsClients;
let s: Stores;
/**
 * Repository behaviour no port declares (listings for operator tooling, RunRepo's round state machine). What the
 * ports declare is in the contract suites (test/contracts/), run here by adapter-contracts.test.ts.
 */
let seq = 0;
const uniq = (p: string) => `${p}-${++seq}-${Date.now()}`;

beforeAll(async () => {
  em = await startEmulators();
  clients = makeClients(em.resources);
  s = makeStores(clients, em.resources, silentLogger);
});
afterAll(async () => {
  clients.dynamo.destroy();
  clients.s3.destroy();
  clients.sqs.destroy();
  await em.stop();
});

describe("InboundRepo", () => {
  it("lists newest first (operator tooling)", async () => {
    for (const receivedAt of ["2026-11-29T10:00:00.000Z", "2026-11-29T10:00:01.000Z"])
      await s.inbound.claim({
        sesMessageId: uniq("ses"),
        recipient: "a@x.example",
        rawKey: "inbound/x",
        receivedAt,
      });
    const recent = await s.inbound.listRecent(2);
    expect(recent).toHaveLength(2);
    const [newest, next] = recent.map((r) => r.receivedAt);
    expect(String(newest) >= String(next)).toBe(true);
  });
});

function newRun(): NewRun {
  const runId = uniq("run");
  return {
    runId,
    agent: "r@x.example",
    kind: "reply",
    messageId: "m",
    responsibilityId: null,
    sender: "joe@football.example.com",
    threadId: "t",
    maxRounds: 3,
    correlationId: "c",
  };
}

describe("RunRepo", () => {
  it("creates a run once", async () => {
    const run = newRun();
    expect(await s.runs.create(run)).toMatchObject({
      ok: true,
      run: { state: "running", round: 1, claimedRound: 0 },
    });
    expect(await s.runs.create(run)).toEqual({ ok: false, reason: "duplicate" });
  });

  it("claims each round once, even when steps race", async () => {
    const { runId } = newRun();
    await s.runs.create({ ...newRun(), runId });
    const claims = await Promise.all([1, 2, 3, 4].map(() => s.runs.claimRound(runId, 1)));
    expect(claims.filter((c) => c.ok)).toHaveLength(1);
    expect(claims.filter((c) => !c.ok && c.reason === "already-claimed")).toHaveLength(3);
    expect(await s.runs.claimRound(runId, 2)).toEqual({ ok: false, reason: "wrong-round" });
    expect(await s.runs.finishRound(runId, 1)).toEqual({ ok: true, round: 2 });
    expect(await s.runs.finishRound(runId, 2)).toEqual({ ok: false, reason: "not-claimed" });
    expect(await s.runs.claimRound(runId, 1)).toEqual({ ok: false, reason: "already-claimed" });
    expect(await s.runs.claimRound(runId, 2)).toEqual({ ok: true });
    expect(await s.runs.finish(runId, "completed", "model-stopped")).toEqual({ ok: true });
    expect(await s.runs.finish(runId, "failed", "again")).toEqual({ ok: false, reason: "not-running" });
    expect(await s.runs.claimRound(runId, 2)).toEqual({ ok: false, reason: "not-running" });
    expect(await s.runs.claimRound("nope", 1)).toEqual({ ok: false, reason: "missing" });
    expect(await s.runs.get(runId)).toMatchObject({ state: "completed", finishReason: "model-stopped" });
  });
});

describe("DynamoRoundLedger.releaseAll", () => {
  it("releases every round whose lease still runs, and leaves done rounds done", async () => {
    const ledger = new DynamoRoundLedger({ dynamo: clients.dynamo, tables: em.resources.tables });
    const [held, done] = [uniq("run-held"), uniq("run-done")];
    const hour = 3_600_000;
    expect(await ledger.claim(held, 1, hour)).toEqual({ status: "claimed", first: true });
    expect(await ledger.claim(done, 1, hour)).toEqual({ status: "claimed", first: true });
    await ledger.markDone(done, 1);
    // The holder is gone (a killed local stack), but its hour-long lease would keep the round busy.
    expect(await ledger.claim(held, 1, hour)).toEqual({ status: "busy" });

    expect(await ledger.releaseAll()).toBeGreaterThanOrEqual(1);
    expect(await ledger.claim(held, 1, hour)).toEqual({ status: "claimed", first: false });
    expect(await ledger.claim(done, 1, hour)).toEqual({ status: "done" });
  });
});
