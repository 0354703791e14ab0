import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { createAttachmentSource, createMailbox } from "../../shared/agent/mailbox/mailbox.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { silentLogger } from "../../shared/logger.ts";
import type { MessageRecord } from "../../shared/ports/messages.ts";
import { newMessageId } from "../../shared/store/message-repo.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { makeCreateFileTool } from "../../shared/tool-framework/builtin/create-file.ts";
import { makeReadAttachmentTool } from "../../shared/tool-framework/builtin/read-attachment.ts";
import { makeSearchEmailsTool } from "../../shared/tool-framework/builtin/search-emails.ts";
import { WHOLE } from "../fakes/builders.ts";
import { toolContext } from "../unit/tools/tool-context.ts";

/** The real Mailbox over the real repositories, against the emulators (DynamoDB: dynalite, S3: fauxqs). */
let em: Emulators;
let clients: AwsClients;
let s: Stores;
const A = "helpdesk@agents.example.net";
const B = "sales@agents.example.net";
const enc = (t: string) => new TextEncoder().encode(t);
let minute = 0;

async function store(
  agent: string,
  threadId: string,
  subject: string,
  body: string,
  attachments: { id: string; text: string }[] = [],
): Promise<MessageRecord> {
  const at = new Date(Date.UTC(2026, 10, 29, 9, minute++));
  const id = newMessageId(at);
  const record: MessageRecord = {
    agent,
    id,
    direction: "in",
    threadId,
    headerMessageId: `${id}@example.com`,
    inReplyTo: null,
    references: [],
    from: "alice@example.com",
    to: [agent],
    cc: [],
    subject,
    at: at.toISOString(),
    bodyKey: `mail/${agent}/${id}/body.txt`,
    hasHtmlOnly: false,
    attachments: attachments.map((a) => ({
      id: a.id,
      filename: `${a.id}.txt`,
      contentType: "text/plain",
      size: a.text.length,
      key: `files/${agent}/${a.id}`,
    })),
    hop: 0,
  };
  await s.blobs.put(record.bodyKey, body, "text/plain");
  for (const a of attachments) await s.blobs.put(`files/${agent}/${a.id}`, enc(a.text), "text/plain");
  expect(await s.messages.put(record)).toEqual({ ok: true });
  return record;
}

const mailboxFor = (agent: string, threadId: string | null, runId = "run-1") =>
  createMailbox({
    agent,
    threadId,
    runId,
    messages: s.messages,
    blobs: s.blobs,
    files: s.state,
    scope: WHOLE,
  });
const read = makeReadAttachmentTool();
const search = makeSearchEmailsTool();

beforeAll(async () => {
  em = await startEmulators();
  clients = makeClients(em.resources);
  s = makeStores(clients, em.resources, silentLogger);
  await store(A, "thread-a1", "Quarterly numbers", "The totals are attached.", [
    { id: "att-a1", text: "north,12" },
  ]);
  await store(A, "thread-a2", "Holiday rota", "Rota for December.", [{ id: "att-a2", text: "rota" }]);
  await store(B, "thread-a1", "Quarterly numbers (sales)", "Sales totals, confidential.", [
    { id: "att-b1", text: "sales secret" },
  ]);
});
afterAll(async () => {
  clients.dynamo.destroy();
  clients.s3.destroy();
  clients.sqs.destroy();
  await em.stop();
});

describe("Mailbox over DynamoDB + S3 (G12)", () => {
  it("resolves an attachment of the current thread", async () => {
    const r = await read.use(toolContext(mailboxFor(A, "thread-a1"), A), { id: "att-a1" });
    expect(r).toMatchObject({ ok: true, data: { id: "att-a1", text: "north,12" } });
  });

  it("refuses an id from another thread unless anyThread", async () => {
    const ctx = toolContext(mailboxFor(A, "thread-a1"), A);
    expect(await read.use(ctx, { id: "att-a2" })).toMatchObject({
      ok: false,
      reason: "attachment-not-found",
    });
    expect(await read.use(ctx, { id: "att-a2", anyThread: true })).toMatchObject({
      ok: true,
      data: { text: "rota" },
    });
  });

  it("refuses an id from another agent's mailbox, in the same-named thread and with anyThread", async () => {
    const ctx = toolContext(mailboxFor(A, "thread-a1"), A);
    for (const anyThread of [false, true]) {
      expect(await read.use(ctx, { id: "att-b1", anyThread })).toMatchObject({
        ok: false,
        reason: "attachment-not-found",
      });
    }
    // The outbound function's loader has the same reach.
    const source = createAttachmentSource({ messages: s.messages, blobs: s.blobs, files: s.state });
    expect(await source.load(A, "att-b1", null)).toBeNull();
    expect(await source.load(B, "att-b1", "thread-a1")).toMatchObject({ meta: { id: "att-b1" } });
  });

  it("search never returns another agent's mail", async () => {
    const r = await search.use(toolContext(mailboxFor(A, "thread-a1"), A), { text: "totals" });
    const messages = r.ok
      ? (r.data as { messages: { subject: string; attachments: { id: string }[] }[] }).messages
      : [];
    expect(messages.map((m) => m.subject)).toEqual(["Quarterly numbers"]);
    expect(messages[0]?.attachments.map((a) => a.id)).toEqual(["att-a1"]);
    const b = await search.use(toolContext(mailboxFor(B, "x"), B), { text: "quarterly" });
    expect(
      (b.ok ? (b.data as { messages: { subject: string }[] }).messages : []).map((m) => m.subject),
    ).toEqual(["Quarterly numbers (sales)"]);
  });

  it("a created file lands in files/<agent>/ and resolves for its own thread and agent only", async () => {
    const r = await makeCreateFileTool().use(toolContext(mailboxFor(A, "thread-a1"), A), {
      filename: "summary",
      contentType: "md",
      content: "# Summary",
    });
    const id = (r.ok ? r.data : {}) as { id: string };
    expect(await s.blobs.getText(`files/${A}/${id.id}`)).toBe("# Summary");
    expect(await read.use(toolContext(mailboxFor(A, "thread-a1", "run-2"), A), id)).toMatchObject({
      ok: true,
    });
    expect(await read.use(toolContext(mailboxFor(A, "thread-a2", "run-2"), A), id)).toMatchObject({
      reason: "attachment-not-found",
    });
    expect(
      await read.use(toolContext(mailboxFor(B, "thread-a1"), B), { ...id, anyThread: true }),
    ).toMatchObject({
      reason: "attachment-not-found",
    });
  });
});
