import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import type { ObservedCall } from "../../shared/aws/observe.ts";
import type { Page } from "../../shared/ports/lists.ts";
import { AuditRepo } from "../../shared/store/audit-repo.ts";
import { InboundRepo } from "../../shared/store/inbound-repo.ts";
import { IndexReads } from "../../shared/store/index-reads.ts";
import { PlanStore } from "../../shared/store/plan-store.ts";
import { RunRepo } from "../../shared/store/run-repo.ts";
import { StateRepo } from "../../shared/store/state-repo.ts";

let emu: Emulators;
let clients: AwsClients;
let reads: IndexReads;
const calls: ObservedCall[] = [];
const A = "a@agents.example.net";
const B = "b@agents.example.net";

beforeAll(async () => {
  emu = await startEmulators();
  clients = makeClients(emu.resources, (c) => calls.push(c));
  reads = new IndexReads({ dynamo: clients.dynamo, tables: emu.resources.tables });
}, 60_000);
afterAll(async () => {
  clients.dynamo.destroy();
  await emu.stop();
});

/** Every page of a list, following the cursors. */
async function all<T>(load: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | undefined;
  do {
    const p = await load(cursor);
    pages.push([...p.items]);
    cursor = p.next ?? undefined;
  } while (cursor && pages.length < 50);
  return pages;
}

const scans = () => calls.filter((c) => c.operation === "Scan");

describe("the console's paged lists read through indexes, never scanning runtime tables", () => {
  it("runs of one agent, newest first, across pages, nothing twice, no other agent's", async () => {
    const runs = new RunRepo({ dynamo: clients.dynamo, tables: emu.resources.tables });
    const base = Date.parse("2026-11-30T10:00:00Z");
    for (let i = 0; i < 23; i++) {
      for (const agent of [A, B])
        await runs.create({
          runId: `run-${agent[0]}-${i}`,
          agent,
          kind: "reply",
          messageId: null,
          responsibilityId: null,
          sender: "x@y.example",
          threadId: null,
          maxRounds: 8,
          correlationId: "c",
          createdAt: new Date(base + i * 1000).toISOString(),
        });
    }
    calls.length = 0;
    const pages = await all((cursor) => reads.runsByAgent(A, { limit: 10, cursor }));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    const ids = pages.flat().map((r) => r.runId);
    expect(ids).toEqual(Array.from({ length: 23 }, (_, i) => `run-a-${22 - i}`));
    expect(scans()).toEqual([]);
    // Paging is exact: a list that ends on a page's last item has no "Older" link to an empty page.
    const whole = await reads.runsByAgent(A, { limit: 23 });
    expect([whole.items.length, whole.next]).toEqual([23, null]);
    expect((await all((cursor) => reads.runsByAgent(A, { limit: 1, cursor }))).map((p) => p.length)).toEqual(
      Array(23).fill(1),
    );
    // A cursor from agent B's list is not a way into it from agent A's: it is ignored (first page again).
    const bFirst = await reads.runsByAgent(B, { limit: 5 });
    const tampered = await reads.runsByAgent(A, { limit: 5, cursor: bFirst.next ?? "" });
    expect(tampered.items.map((r) => r.runId)[0]).toBe("run-a-22");
    expect((await reads.runsByAgent(A, { limit: 5, cursor: "not-a-cursor" })).items).toHaveLength(5);
  });

  it("refused and dropped mail per day, newest first, filtered by reason, across day partitions", async () => {
    let now = new Date("2026-11-28T12:00:00Z");
    const inbound = new InboundRepo({ dynamo: clients.dynamo, tables: emu.resources.tables, now: () => now });
    const reasons = ["signature-misaligned", "access-denied", "unknown-address"];
    for (let i = 0; i < 30; i++) {
      now = new Date(Date.parse("2026-11-28T12:00:00Z") + i * 3 * 3600_000); // spans 4 days
      const claim = {
        sesMessageId: `ses-${i}`,
        recipient: A,
        rawKey: `inbound/ses-${i}`,
        receivedAt: now.toISOString(),
      };
      await inbound.claim(claim);
      await inbound.complete(claim.sesMessageId, A, {
        verdict: i % 7 === 0 ? "accept" : "refuse",
        reason: i % 7 === 0 ? "accepted" : (reasons[i % 3] as string),
        sender: null,
        agent: A,
        messageId: null,
      });
    }
    calls.length = 0;
    const today = new Date("2026-12-02T00:00:00Z");
    const pages = await all((cursor) => reads.refusals({ limit: 7, cursor, today }));
    const items = pages.flat();
    expect(items).toHaveLength(30 - 5);
    // Exact paging across day partitions: no empty page behind an "Older" link, whatever the page size (25
    // refusals: 5 pages of 5, and nothing after the fifth).
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 4]);
    for (const limit of [5, 25, 1])
      expect(
        (await all((cursor) => reads.refusals({ limit, cursor, today }))).map((p) => p.length),
        `limit ${limit}`,
      ).toEqual(Array(25 / limit).fill(limit));
    expect(items.every((r) => r.verdict === "refuse")).toBe(true);
    const times = items.map((r) => r.refusalAt);
    expect(times).toEqual([...times].sort().reverse());
    const denied = (
      await all((cursor) => reads.refusals({ limit: 3, cursor, today, reason: "access-denied" }))
    ).flat();
    expect(denied.length).toBeGreaterThan(0);
    expect(denied.every((r) => r.reason === "access-denied")).toBe(true);
    expect(denied).toHaveLength(items.filter((r) => r.reason === "access-denied").length);
    const deniedPages = await all((cursor) =>
      reads.refusals({ limit: denied.length, cursor, today, reason: "access-denied" }),
    );
    expect(deniedPages.map((p) => p.length)).toEqual([denied.length]);
    expect(scans()).toEqual([]);
    // Nothing sender-written is in the verdict record (G4): only codes, addresses and times.
    expect(Object.keys(items[0] ?? {}).sort()).toEqual(
      [
        "agent",
        "claimedAt",
        "completedAt",
        "messageId",
        "rawKey",
        "reason",
        "receivedAt",
        "recipient",
        "refusalAt",
        "refusalDay",
        "sender",
        "sesMessageId",
        "status",
        "verdict",
      ].sort(),
    );
  });

  it("pending plans, and an agent's thread messages scoped to its own mailbox", async () => {
    const state = new StateRepo({ dynamo: clients.dynamo, tables: emu.resources.tables });
    const plans = new PlanStore({ dynamo: clients.dynamo, tables: emu.resources.tables, state });
    for (const runId of ["p1", "p2", "p3"]) {
      await plans.add(runId, A, {
        callId: "c1",
        tool: "issue_refund",
        input: { order: runId },
        summary: "s",
        toolkits: ["refunds"],
      });
    }
    await plans.seal("p1", A, { code: "CODE1", hash: "h", expiresAtIso: "2099-01-01T00:00:00Z" });
    await plans.seal("p2", A, { code: "CODE2", hash: "h", expiresAtIso: "2099-01-01T00:00:00Z" });
    await plans.move("p2", "pending", "applying");
    calls.length = 0;
    const pending = await reads.plansByState("pending", { limit: 10 });
    expect(pending.items.map((p) => p.runId)).toEqual(["p1"]);
    expect((await reads.plansByState("open", { limit: 10 })).items.map((p) => p.runId)).toEqual(["p3"]);

    const put = (agent: string, id: string, threadId: string) =>
      clients.dynamo.send(
        new PutCommand({
          TableName: emu.resources.tables.messages,
          Item: { agent, id, threadId, direction: "in", subject: "s", at: "2026-11-30T00:00:00Z" },
        }),
      );
    await put(A, "20261130T000001-1", "t-1");
    await put(A, "20261130T000002-2", "t-1");
    await put(B, "20261130T000003-3", "t-1"); // the same thread id under another agent: never shown for A
    const msgs = await reads.threadMessages(A, "t-1", { limit: 10 });
    expect(msgs.items.map((m) => m.id)).toEqual(["20261130T000001-1", "20261130T000002-2"]);
    expect(scans()).toEqual([]);
  });

  it("the audit log lists newest first, with before and after", async () => {
    const audit = new AuditRepo({ dynamo: clients.dynamo, tables: emu.resources.tables });
    const e1 = await audit.record({
      actor: "x@y",
      action: "put",
      table: "agents",
      key: 'address="a"',
      before: null,
      after: { a: 1 },
    });
    await audit.settle(e1, "applied");
    await audit.record({
      actor: "x@y",
      action: "delete",
      table: "agents",
      key: 'address="a"',
      before: { a: 1 },
      after: null,
    });
    const page = await audit.list({ limit: 10 });
    expect(page.items.map((e) => [e.action, e.outcome])).toEqual([
      ["delete", "recorded"],
      ["put", "applied"],
    ]);
    expect(page.items[1]?.after).toEqual({ a: 1 });
  });
});
