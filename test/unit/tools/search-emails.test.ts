import { beforeEach, describe, expect, it } from "vitest";
import { createMailbox } from "../../../shared/agent/mailbox/mailbox.ts";
import {
  MAX_SEARCH_RESULT_BYTES,
  makeSearchEmailsTool,
} from "../../../shared/tool-framework/builtin/search-emails.ts";
import { WHOLE } from "../../fakes/builders.ts";
import { addMessage, MemoryMailboxStore } from "./memory-mailbox-store.ts";
import { toolContext } from "./tool-context.ts";

const A = "helpdesk@agents.example.net";
const B = "sales@agents.example.net";
const tool = makeSearchEmailsTool();
type Hit = {
  id: string;
  threadId: string;
  subject: string;
  snippet: string;
  at: string;
  from: string;
  attachments: { id: string; filename: string; contentType: string; size: number }[];
};
const hits = (r: Awaited<ReturnType<typeof tool.use>>) =>
  (r.ok ? (r.data as { messages: Hit[] }).messages : []) as Hit[];

let store: MemoryMailboxStore;
const ctx = (agent = A, threadId: string | null = "t1") =>
  toolContext(createMailbox({ ...store, agent, threadId, runId: "run-1", scope: WHOLE }), agent);

beforeEach(() => {
  store = new MemoryMailboxStore();
  addMessage(
    store,
    { agent: A, threadId: "t1", subject: "Invoice 1042", from: "alice@example.com" },
    "Please pay the invoice by Friday.",
    [{ id: "att-inv", filename: "invoice.pdf", contentType: "application/pdf", bytes: new Uint8Array(321) }],
  );
  addMessage(
    store,
    { agent: A, threadId: "t2", subject: "Lunch", from: "bob@example.org", cc: ["carol@example.com"] },
    "Are you free for lunch on Friday?",
  );
  addMessage(
    store,
    {
      agent: A,
      threadId: "t1",
      direction: "out",
      from: A,
      to: ["alice@example.com"],
      subject: "Re: Invoice 1042",
    },
    "Paid, thanks.",
  );
  addMessage(
    store,
    { agent: A, threadId: "t3", subject: "Newsletter", hasHtmlOnly: true },
    "<p>friday sale</p>",
  );
  addMessage(
    store,
    { agent: B, threadId: "t1", subject: "Invoice for sales", from: "alice@example.com" },
    "Another agent's invoice, Friday.",
  );
});

describe("search_emails", () => {
  it("matches subject, participants and body, newest first, with attachments", async () => {
    const r = hits(await tool.use(ctx(), { text: "invoice" }));
    expect(r.map((m) => m.subject)).toEqual(["Re: Invoice 1042", "Invoice 1042"]);
    expect(r[1]?.attachments).toEqual([
      { id: "att-inv", filename: "invoice.pdf", contentType: "application/pdf", size: 321 },
    ]);
    expect(r[1]?.snippet).toBe("Please pay the invoice by Friday.");
    const byBody = hits(await tool.use(ctx(), { text: "friday" }));
    expect(byBody.map((m) => m.subject)).toEqual(["Lunch", "Invoice 1042"]);
  });

  it("filters by participant (From, To or Cc)", async () => {
    expect(hits(await tool.use(ctx(), { participant: "carol@example.com" })).map((m) => m.subject)).toEqual([
      "Lunch",
    ]);
    expect(
      hits(await tool.use(ctx(), { participant: "ALICE@example.com", text: "paid" })).map((m) => m.subject),
    ).toEqual(["Re: Invoice 1042"]);
  });

  it("never returns another agent's mail, and searches every thread of its own", async () => {
    const mine = hits(await tool.use(ctx(A, "t1"), { text: "invoice" }));
    expect(mine.every((m) => !m.subject.includes("sales"))).toBe(true);
    const theirs = hits(await tool.use(ctx(B, "t9"), { text: "invoice" }));
    expect(theirs.map((m) => m.subject)).toEqual(["Invoice for sales"]);
  });

  it("does not search or quote the body of HTML-only mail (G8)", async () => {
    expect(hits(await tool.use(ctx(), { text: "sale" }))).toEqual([]);
    const r = hits(await tool.use(ctx(), { text: "newsletter" }));
    expect(r[0]?.snippet).toBe("");
    expect(store.bodyReads).not.toContain(store.records[3]?.bodyKey);
  });

  it("bounds the count (schema max 20) and the result size", async () => {
    expect(tool.input.safeParse({ text: "x", limit: 21 }).success).toBe(false);
    expect(await tool.use(ctx(), {})).toMatchObject({ ok: false, reason: "search-query-empty" });
    for (let i = 0; i < 30; i++) {
      addMessage(
        store,
        { agent: A, threadId: `bulk${i}`, subject: `Bulk ${"s".repeat(1000)}` },
        `bulk body ${"b".repeat(5000)}`,
        Array.from({ length: 25 }, (_, j) => ({
          id: `att-${i}-${j}`,
          filename: `${"f".repeat(180)}-${j}.txt`,
          contentType: "text/plain",
          bytes: new Uint8Array(1),
        })),
      );
    }
    const r = await tool.use(ctx(), { text: "bulk", limit: 20 });
    const data = (r.ok ? r.data : {}) as { truncated: boolean; messages: Hit[] };
    expect(data.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(data.messages))).toBeLessThanOrEqual(MAX_SEARCH_RESULT_BYTES);
    expect(data.messages.length).toBeGreaterThan(0);
    expect(data.messages[0]?.subject.length).toBeLessThanOrEqual(301);
    expect(data.messages[0]?.snippet.length).toBeLessThanOrEqual(301);
    expect(data.messages[0]?.attachments).toHaveLength(20);
    // newest first even after trimming
    const ats = data.messages.map((m) => m.at);
    expect([...ats].sort().reverse()).toEqual(ats);
  });

  it("is marked as reading stored mail, with record-content egress", () => {
    expect(tool.readsStoredMail).toBe(true);
    expect(tool.egress).toMatchObject({ kind: "classified", record: true });
  });
});
