import type { MailboxStore } from "../../../shared/agent/mailbox/mailbox.ts";
import type { MessageRecord } from "../../../shared/ports/messages.ts";
import { memoryBlobs } from "../../fakes/blobs.ts";
import { memoryMessages } from "../../fakes/messages.ts";
import { memoryState } from "../../fakes/state.ts";

/**
 * The repositories the real Mailbox reads (MessageRepo, BlobStore, the `state` table's file items), as the shared
 * fakes of test/fakes/ (each run against its real adapter by the contract suites). The Mailbox under test is the
 * real one; the integration test runs the same scoping against the emulators.
 */
export class MemoryMailboxStore implements MailboxStore {
  readonly messages = memoryMessages();
  readonly blobs = memoryBlobs();
  readonly files = memoryState();

  /** Stored messages, in the order they were added. */
  get records(): MessageRecord[] {
    return [...this.messages.records.values()];
  }

  /** Every object key read, in order (a search reads bodies within a budget). */
  get bodyReads(): readonly string[] {
    return this.blobs.reads;
  }
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
  store.messages.records.set(`${record.agent}|${record.id}`, record);
  store.blobs.objects.set(record.bodyKey, { bytes: new TextEncoder().encode(body) });
  for (const f of files) store.blobs.objects.set(f.key ?? `files/${m.agent}/${f.id}`, { bytes: f.bytes });
  return record;
}
