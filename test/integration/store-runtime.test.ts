import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { InboundRepo } from "../../shared/store/inbound-repo.ts";
import { silentLogger } from "../../shared/store/logger.ts";
import { type MessageRecord, newMessageId } from "../../shared/store/message-repo.ts";
import type { NewRun } from "../../shared/store/run-repo.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";

let em: Emulators;
let clients: AwsClients;
let s: Stores;
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
  it("claims one (SES message, recipient) once: the second delivery is a duplicate", async () => {
    const claim = {
      sesMessageId: uniq("ses"),
      recipient: "a@x.example",
      rawKey: "inbound/x",
      receivedAt: "2026-11-29T10:00:00.000Z",
    };
    const first = await s.inbound.claim(claim);
    expect(first).toMatchObject({ ok: true, record: { status: "claimed", verdict: null } });
    const second = await s.inbound.claim(claim);
    expect(second).toMatchObject({ ok: false, reason: "duplicate", existing: { status: "claimed" } });
    // Another envelope recipient of the same mail is its own item (Bcc'd agents).
    expect((await s.inbound.claim({ ...claim, recipient: "b@x.example" })).ok).toBe(true);
  });

  it("completes once, and reports missing claims", async () => {
    const claim = {
      sesMessageId: uniq("ses"),
      recipient: "a@x.example",
      rawKey: "inbound/y",
      receivedAt: "2026-11-29T10:00:01.000Z",
    };
    await s.inbound.claim(claim);
    const outcome = {
      verdict: "refuse",
      reason: "access-denied",
      sender: "eve@evil.example",
      agent: "a@x.example",
      messageId: null,
    } as const;
    expect(await s.inbound.complete(claim.sesMessageId, claim.recipient, outcome)).toEqual({ ok: true });
    expect(await s.inbound.complete(claim.sesMessageId, claim.recipient, outcome)).toEqual({
      ok: false,
      reason: "already-done",
    });
    expect(await s.inbound.complete("nope", "a@x.example", outcome)).toEqual({
      ok: false,
      reason: "missing",
    });
    expect(await s.inbound.get(claim.sesMessageId, claim.recipient)).toMatchObject({
      status: "done",
      verdict: "refuse",
      reason: "access-denied",
    });
  });

  it("lets exactly one redelivery take over a stale claim", async () => {
    let now = new Date("2026-11-29T10:00:00.000Z");
    const repo = new InboundRepo({ dynamo: clients.dynamo, tables: em.resources.tables, now: () => now });
    const claim = {
      sesMessageId: uniq("ses"),
      recipient: "a@x.example",
      rawKey: "inbound/z",
      receivedAt: "2026-11-29T10:00:02.000Z",
    };
    await repo.claim(claim);
    now = new Date("2026-11-29T10:10:00.000Z");
    const dup = await repo.claim(claim);
    const seen = !dup.ok && dup.existing ? dup.existing.claimedAt : "";
    expect(seen).toBe("2026-11-29T10:00:00.000Z");
    const results = await Promise.all(
      [1, 2, 3].map(() => repo.reclaimStale(claim.sesMessageId, claim.recipient, seen)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    await repo.complete(claim.sesMessageId, claim.recipient, {
      verdict: "drop",
      reason: "hop-limit",
      sender: null,
      agent: null,
      messageId: null,
    });
    expect(await repo.reclaimStale(claim.sesMessageId, claim.recipient, "2026-11-29T10:10:00.000Z")).toBe(
      false,
    );
  });

  it("lists newest first", async () => {
    const recent = await s.inbound.listRecent(2);
    expect(recent).toHaveLength(2);
    const [newest, next] = recent.map((r) => r.receivedAt);
    expect(String(newest) >= String(next)).toBe(true);
  });
});

function message(agent: string, over: Partial<MessageRecord> = {}): MessageRecord {
  return {
    agent,
    id: newMessageId(),
    direction: "in",
    threadId: "t1",
    headerMessageId: `${uniq("m")}@x.example`,
    inReplyTo: null,
    references: [],
    from: "joe@football.example.com",
    to: [agent],
    cc: [],
    subject: "Hello",
    at: new Date().toISOString(),
    bodyKey: "mail/a/1/body.txt",
    hasHtmlOnly: false,
    attachments: [],
    hop: 0,
    ...over,
  };
}

describe("MessageRepo", () => {
  it("rejects a second put of the same message", async () => {
    const m = message("mbox1@x.example");
    expect(await s.messages.put(m)).toEqual({ ok: true });
    expect(await s.messages.put({ ...m, subject: "changed" })).toEqual({ ok: false, reason: "duplicate" });
    expect((await s.messages.get(m.agent, m.id))?.subject).toBe("Hello");
  });

  it("lists an agent's mailbox newest first and a thread within one agent only", async () => {
    const agent = "mbox2@x.example";
    const [id0, id1, id2] = [
      new Date("2026-01-01T00:00:00Z"),
      new Date("2026-01-02T00:00:00Z"),
      new Date("2026-01-03T00:00:00Z"),
    ].map((d) => newMessageId(d)) as [string, string, string];
    await s.messages.put(message(agent, { id: id1, threadId: "tA" }));
    await s.messages.put(message(agent, { id: id0, threadId: "tA" }));
    await s.messages.put(message(agent, { id: id2, threadId: "tB" }));
    await s.messages.put(message("other@x.example", { id: id0, threadId: "tA" }));
    expect((await s.messages.listByAgent(agent, { limit: 2 })).map((m) => m.id)).toEqual([id2, id1]);
    expect((await s.messages.listByThread(agent, "tA")).map((m) => m.id)).toEqual([id0, id1]);
  });
});

describe("ThreadRepo", () => {
  it("joins a thread only through a Message-ID known to the same agent", async () => {
    const a = "ta@x.example";
    const b = "tb@x.example";
    const first = await s.threads.resolveThread(a, {
      headerMessageId: "<m1@x>",
      inReplyTo: null,
      references: [],
      subject: "Hi",
    });
    expect(first.isNew).toBe(true);
    expect(await s.threads.recordMessageId(a, "<m1@x>", first.threadId)).toEqual({ ok: true });
    expect(await s.threads.recordMessageId(a, "m1@x", "other")).toEqual({
      ok: false,
      reason: "duplicate",
      threadId: first.threadId,
    });

    const reply = {
      headerMessageId: "<m2@x>",
      inReplyTo: "<m1@x>",
      references: ["<m1@x>"],
      subject: "Re: Hi",
    };
    expect(await s.threads.resolveThread(a, reply)).toEqual({ threadId: first.threadId, isNew: false });
    // The same headers sent to another agent do not reach agent a's thread.
    const other = await s.threads.resolveThread(b, reply);
    expect(other.isNew).toBe(true);
    expect(other.threadId).not.toBe(first.threadId);
    // References alone (no In-Reply-To) still thread; a same subject alone does not.
    const viaRefs = {
      headerMessageId: "<m3@x>",
      inReplyTo: null,
      references: ["<zz@x>", "<m1@x>"],
      subject: "x",
    };
    expect((await s.threads.resolveThread(a, viaRefs)).threadId).toBe(first.threadId);
    const sameSubject = { headerMessageId: "<m4@x>", inReplyTo: null, references: [], subject: "Hi" };
    expect((await s.threads.resolveThread(a, sameSubject)).isNew).toBe(true);
  });

  it("keeps a thread's summary: first subject, latest time, count", async () => {
    const a = "tc@x.example";
    await s.threads.touch(a, "T", { lastMessageAt: "2026-01-02T00:00:00Z", subject: "First" });
    await s.threads.touch(a, "T", { lastMessageAt: "2026-01-01T00:00:00Z", subject: "Older" });
    expect(await s.threads.get(a, "T")).toMatchObject({
      subject: "First",
      lastMessageAt: "2026-01-02T00:00:00Z",
      messageCount: 2,
    });
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
    transcriptKey: `transcripts/${runId}.json`,
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

describe("RunEventRepo", () => {
  it("allocates unique ordered sequence numbers under concurrent appends", async () => {
    const run = newRun();
    await s.runs.create(run);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.runEvents.append(run.runId, {
          type: "tool-call",
          at: "2026-01-01T00:00:00Z",
          round: 1,
          data: { i },
        }),
      ),
    );
    expect(results.map((r) => (r.ok ? r.seq : -1)).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    const events = await s.runEvents.list(run.runId);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await s.runEvents.append("nope", { type: "x", at: "", round: 1, data: {} })).toEqual({
      ok: false,
      reason: "missing-run",
    });
    expect(
      await s.runEvents.append(run.runId, { type: "x", at: "", round: 1, data: { big: "x".repeat(40_000) } }),
    ).toEqual({
      ok: false,
      reason: "too-large",
    });
  });
});

describe("StateRepo", () => {
  it("puts an idempotency key once, until it expires", async () => {
    let now = new Date("2026-01-01T00:00:00Z");
    const { StateRepo } = await import("../../shared/store/state-repo.ts");
    const state = new StateRepo({ dynamo: clients.dynamo, tables: em.resources.tables, now: () => now });
    const pk = uniq("idem");
    expect(await state.putIfAbsent(pk, "k", { v: 1 }, 60)).toEqual({ ok: true });
    expect(await state.putIfAbsent(pk, "k", { v: 2 }, 60)).toMatchObject({
      ok: false,
      reason: "duplicate",
      existing: { v: 1 },
    });
    now = new Date("2026-01-01T00:02:00Z");
    expect(await state.get(pk, "k")).toBeNull();
    expect(await state.putIfAbsent(pk, "k", { v: 3 }, 60)).toEqual({ ok: true });
  });

  it("transitions only from the expected state", async () => {
    const pk = uniq("send");
    await s.state.putIfAbsent(pk, "s", { state: "pending" });
    expect(await s.state.transition(pk, "s", "pending", "sending", { attempt: 1 })).toEqual({ ok: true });
    expect(await s.state.transition(pk, "s", "pending", "sending")).toEqual({
      ok: false,
      reason: "conflict",
      state: "sending",
    });
    expect(await s.state.transition(uniq("none"), "s", "pending", "sending")).toEqual({
      ok: false,
      reason: "missing",
    });
    expect(await s.state.get(pk, "s")).toMatchObject({ state: "sending", attempt: 1 });
  });

  it("never lets concurrent increments pass the limit", async () => {
    const pk = uniq("budget");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => s.state.increment(pk, "runs", 1, { limit: 4, ttlSeconds: 3600 })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(4);
    expect(results.filter((r) => !r.ok)).toEqual(
      Array(6).fill({ ok: false, reason: "limit-reached", value: 4 }),
    );
    expect(await s.state.increment(pk, "tokens", 500, { limit: 400 })).toEqual({
      ok: false,
      reason: "limit-reached",
      value: 0,
    });
    expect(await s.state.increment(pk, "tokens", 5)).toEqual({ ok: true, value: 5 });
  });
});

describe("BlobStore and SqsQueue", () => {
  it("keeps bytes exact, returns null for a missing key, round-trips JSON", async () => {
    const bytes = new Uint8Array([0, 13, 10, 46, 255, 128]);
    await s.blobs.put("mail/a/1/raw", bytes, "application/octet-stream");
    expect(await s.blobs.get("mail/a/1/raw")).toEqual(bytes);
    expect(await s.blobs.get("mail/none")).toBeNull();
    expect(await s.blobs.getText("mail/none")).toBeNull();
    await s.blobs.putJson("transcripts/r.json", { a: [1, "ü"] });
    expect(await s.blobs.getJson("transcripts/r.json")).toEqual({ a: [1, "ü"] });
  });

  it("sends a JSON body to a queue", async () => {
    const url = em.resources.queues.outbound;
    await s.queue.send(url, { requestId: "r1" });
    const r = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
    expect(JSON.parse(r.Messages?.[0]?.Body ?? "null")).toEqual({ requestId: "r1" });
    await expect(s.queue.send(url, {}, { delaySeconds: 901 })).rejects.toThrow(/0-900/);
  });
});
