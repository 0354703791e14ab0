import type { MailboxStore } from "../../../shared/agent/mailbox.ts";
import type { MessageRecord } from "../../../shared/store/message-repo.ts";

/**
 * An in-memory stand-in for the store repositories the real Mailbox reads (same method contracts as
 * MessageRepo, BlobStore and StateRepo). The Mailbox under test is the real one; only DynamoDB and S3 are
 * replaced here (the integration test runs the same scoping against the emulators).
 */
export class MemoryMailboxStore implements MailboxStore {
  readonly records: MessageRecord[] = [];
  readonly objects = new Map<string, Uint8Array>();
  readonly items = new Map<string, Record<string, unknown>>();
  readonly bodyReads: string[] = [];

  readonly messages = {
    listByAgent: async (agent: string, opts: { limit?: number } = {}) =>
      this.records
        .filter((m) => m.agent === agent)
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .slice(0, opts.limit ?? Number.POSITIVE_INFINITY),
    listByThread: async (agent: string, threadId: string) =>
      this.records
        .filter((m) => m.agent === agent && m.threadId === threadId)
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
  };

  readonly blobs = {
    get: async (key: string) => this.objects.get(key) ?? null,
    getText: async (key: string) => {
      this.bodyReads.push(key);
      const b = this.objects.get(key);
      return b ? new TextDecoder().decode(b) : null;
    },
    put: async (key: string, bytes: Uint8Array | string) => {
      this.objects.set(key, typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes);
    },
  };

  readonly files = {
    putIfAbsent: async (pk: string, sk: string, attrs: Record<string, unknown> = {}) => {
      const k = `${pk}|${sk}`;
      const existing = this.items.get(k);
      if (existing) return { ok: false as const, reason: "duplicate" as const, existing };
      this.items.set(k, { ...attrs, pk, sk });
      return { ok: true as const };
    },
    get: async (pk: string, sk: string) => this.items.get(`${pk}|${sk}`) ?? null,
  };
}

let seq = 0;

/** A stored message with its body (and attachment bytes) in the store. */
export function addMessage(
  store: MemoryMailboxStore,
  m: Partial<MessageRecord> & { agent: string; threadId: string },
  body = "",
  files: readonly {
    id: string;
    filename: string;
    contentType: string;
    bytes: Uint8Array;
    key?: string;
  }[] = [],
): MessageRecord {
  seq += 1;
  const at = m.at ?? new Date(Date.UTC(2026, 10, 1, 12, 0, seq)).toISOString();
  const id = m.id ?? `${at.replace(/[-:.Z]/g, "")}-${seq.toString(16).padStart(8, "0")}`;
  const record: MessageRecord = {
    direction: "in",
    headerMessageId: `${id}@example.com`,
    inReplyTo: null,
    references: [],
    from: "alice@example.com",
    to: [m.agent],
    cc: [],
    subject: "Hello",
    bodyKey: `mail/${m.agent}/${id}/body.txt`,
    hasHtmlOnly: false,
    hop: 0,
    ...m,
    id,
    at,
    attachments: files.map((f) => ({
      id: f.id,
      filename: f.filename,
      contentType: f.contentType,
      size: f.bytes.byteLength,
      key: f.key ?? `files/${m.agent}/${f.id}`,
    })),
  };
  store.records.push(record);
  store.objects.set(record.bodyKey, new TextEncoder().encode(body));
  for (const f of files) store.objects.set(f.key ?? `files/${m.agent}/${f.id}`, f.bytes);
  return record;
}
