import { beforeEach, describe, expect, it } from "vitest";
import { createMailbox } from "../../../shared/agent/mailbox/mailbox.ts";
import { makeReadAttachmentTool } from "../../../shared/tool-framework/builtin/read-attachment.ts";
import type { ToolContent } from "../../../shared/tool-framework/tool.ts";
import { WHOLE } from "../../fakes/builders.ts";
import { addMessage, MemoryMailboxStore } from "./memory-mailbox-store.ts";
import { toolContext } from "./tool-context.ts";

const A = "helpdesk@agents.example.net";
const B = "sales@agents.example.net";
const enc = (s: string) => new TextEncoder().encode(s);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const PDF = enc("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n");

let store: MemoryMailboxStore;
const ctxFor = (agent: string, threadId: string | null) =>
  toolContext(createMailbox({ ...store, agent, threadId, runId: "run-1", scope: WHOLE }), agent);
const tool = makeReadAttachmentTool({ maxTextChars: 40, maxBinaryBytes: 1024 });

beforeEach(() => {
  store = new MemoryMailboxStore();
  addMessage(store, { agent: A, threadId: "t1" }, "see attached", [
    {
      id: "att-notes",
      filename: "notes.txt",
      contentType: "text/plain; charset=utf-8",
      bytes: enc("line one\nline two"),
    },
    { id: "att-data", filename: "data.json", contentType: "application/json", bytes: enc('{"a":1}') },
    { id: "att-long", filename: "long.csv", contentType: "text/csv", bytes: enc("x,".repeat(100)) },
    { id: "att-png", filename: "chart.png", contentType: "image/png", bytes: PNG },
    { id: "att-pdf", filename: "invoice.pdf", contentType: "application/pdf", bytes: PDF },
    { id: "att-zip", filename: "a.zip", contentType: "application/zip", bytes: enc("PK\x03\x04") },
    { id: "att-fakepng", filename: "x.png", contentType: "image/png", bytes: enc("<html>not a png</html>") },
    {
      id: "att-bigpng",
      filename: "big.png",
      contentType: "image/png",
      bytes: new Uint8Array([...PNG, ...new Uint8Array(2000)]),
    },
  ]);
  addMessage(store, { agent: A, threadId: "t2" }, "other thread", [
    { id: "att-t2", filename: "t2.txt", contentType: "text/plain", bytes: enc("from thread two") },
  ]);
  addMessage(store, { agent: B, threadId: "t1" }, "another agent", [
    { id: "att-b", filename: "b.txt", contentType: "text/plain", bytes: enc("agent B's secret") },
  ]);
});

describe("read_attachment", () => {
  it("returns text types as text", async () => {
    const r = await tool.use(ctxFor(A, "t1"), { id: "att-notes" });
    expect(r).toEqual({
      ok: true,
      data: {
        id: "att-notes",
        filename: "notes.txt",
        contentType: "text/plain; charset=utf-8",
        size: 17,
        text: "line one\nline two",
        truncated: false,
      },
    });
    expect(await tool.use(ctxFor(A, "t1"), { id: "att-data" })).toMatchObject({
      ok: true,
      data: { text: '{"a":1}' },
    });
  });

  it("caps text with a marker", async () => {
    const r = await tool.use(ctxFor(A, "t1"), { id: "att-long" });
    expect(r).toMatchObject({ ok: true, data: { truncated: true } });
    expect(r.ok && (r.data as { text: string }).text).toMatch(/^(x,){20}\n\[… truncated: 160 more/);
  });

  it("returns images and PDFs as content blocks the model can view", async () => {
    const png = await tool.use(ctxFor(A, "t1"), { id: "att-png" });
    expect(png.ok && png.content).toEqual([
      { type: "image", mediaType: "image/png", base64: Buffer.from(PNG).toString("base64") },
    ] satisfies ToolContent[]);
    const pdf = await tool.use(ctxFor(A, "t1"), { id: "att-pdf" });
    expect(pdf.ok && pdf.content?.[0]).toMatchObject({
      type: "document",
      mediaType: "application/pdf",
      name: "invoice.pdf",
    });
  });

  it("refuses other types, content that is not what it claims, and oversized binaries", async () => {
    expect(await tool.use(ctxFor(A, "t1"), { id: "att-zip" })).toMatchObject({
      ok: false,
      reason: "attachment-type-unsupported",
    });
    expect(await tool.use(ctxFor(A, "t1"), { id: "att-fakepng" })).toMatchObject({
      ok: false,
      reason: "attachment-type-unsupported",
    });
    expect(await tool.use(ctxFor(A, "t1"), { id: "att-bigpng" })).toMatchObject({
      ok: false,
      reason: "attachment-too-large",
    });
  });

  it("G12: an id from another thread is not found by default, and found with anyThread", async () => {
    expect(await tool.use(ctxFor(A, "t1"), { id: "att-t2" })).toMatchObject({
      ok: false,
      reason: "attachment-not-found",
    });
    expect(await tool.use(ctxFor(A, "t1"), { id: "att-t2", anyThread: true })).toMatchObject({
      ok: true,
      data: { text: "from thread two" },
    });
  });

  it("G12: an id from another agent's mailbox is not found, even with anyThread and the same thread id", async () => {
    for (const anyThread of [false, true]) {
      expect(await tool.use(ctxFor(A, "t1"), { id: "att-b", anyThread })).toMatchObject({
        ok: false,
        reason: "attachment-not-found",
      });
    }
    expect(await tool.use(ctxFor(B, "t1"), { id: "att-b" })).toMatchObject({ ok: true });
  });

  it("G12: a record whose key points into another agent's files is treated as not found", async () => {
    addMessage(store, { agent: A, threadId: "t1" }, "forged", [
      {
        id: "att-forged",
        filename: "f.txt",
        contentType: "text/plain",
        bytes: enc("x"),
        key: `files/${B}/att-b`,
      },
    ]);
    expect(await tool.use(ctxFor(A, "t1"), { id: "att-forged", anyThread: true })).toMatchObject({
      ok: false,
      reason: "attachment-not-found",
    });
  });

  it("a threadless (scheduled) run reaches no thread's attachments unless anyThread", async () => {
    expect(await tool.use(ctxFor(A, null), { id: "att-notes" })).toMatchObject({
      reason: "attachment-not-found",
    });
    expect(await tool.use(ctxFor(A, null), { id: "att-notes", anyThread: true })).toMatchObject({ ok: true });
  });

  it("is marked as reading stored mail, with record-content egress", () => {
    expect(tool.readsStoredMail).toBe(true);
    expect(tool.egress).toMatchObject({ kind: "classified", record: true });
    expect(tool.sideEffects).toEqual({ kind: "none" });
  });
});
