import type { Fail, Ok } from "../result.ts";
// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

export interface AttachmentRef {
  readonly id: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  /** S3 key (`files/<agent>/<id>`). */
  readonly key: string;
}

/**
 * How an accepted mail's sender was proven (G2), as verify recorded it: the proving DKIM signature's domain, and
 * which of the fields an approver weighs it covers. `threading`: `signed` when the signature covers every threading
 * field the mail carries, `unsigned` when one it carries is not covered (read as absent), `none` when it carries none.
 */
export interface MessageProof {
  readonly dkimDomain: string;
  readonly signed: {
    readonly to: boolean;
    readonly cc: boolean;
    readonly threading: "signed" | "unsigned" | "none";
  };
}

/**
 * One mail in an agent's mailbox (accepted inbound or sent outbound). A short body is kept on the item (`body`);
 * a longer one lives in S3 (`bodyKey`), so the item stays small. Refused mail never becomes a MessageRecord (its
 * evidence stays in the inbound table + raw S3). Read a body with `bodyText`.
 */
export interface MessageRecord {
  readonly agent: string;
  /** Sort key; use `newMessageId()` so ids sort by time (listByAgent relies on it). */
  readonly id: string;
  readonly direction: "in" | "out";
  readonly threadId: string;
  /** The RFC 5322 Message-ID, without angle brackets. */
  readonly headerMessageId: string;
  readonly inReplyTo: string | null;
  readonly references: string[];
  readonly from: string;
  /** Inbound only: the From display name as written (sender text: shown only through the fence's rules, G8). */
  readonly fromName?: string;
  readonly to: string[];
  readonly cc: string[];
  /**
   * Outbound only: who got the mail blind. Never shown to a model or another participant; read only to decide
   * who may see this message (same eyes). Absent on inbound mail and on older records.
   */
  readonly bcc?: string[];
  readonly subject: string;
  /** ISO time: received (in) or sent (out). */
  readonly at: string;
  /** Where the body is in S3, unless `body` holds it. */
  readonly bodyKey: string;
  /** The body text itself, when at most INLINE_BODY_MAX_BYTES (then nothing is written at `bodyKey`). */
  readonly body?: string;
  /** An HTML-only mail shows no body to the model (G8). */
  readonly hasHtmlOnly: boolean;
  readonly attachments: AttachmentRef[];
  /** X-Postern-Recursion value carried (in) or stamped (out) (G5). */
  readonly hop: number;
  readonly sesMessageId?: string;
  /** Inbound only: automatic mail (G5) an agent opted in to; the engine never writes to its sender unasked. */
  readonly automatic?: boolean;
  /** Inbound only: how the sender was proven (absent on mail stored before it was recorded). */
  readonly proof?: MessageProof;
  /**
   * Inbound only: how the mail was addressed to the agent (shared/gate/addressed.ts). `envelope` and `reply` mean
   * the signature covered no To/Cc naming it: the run writes to the sender only. Absent on older records.
   */
  readonly addressing?: AddressingKind;
  /** Inbound only: how it found its thread. Absent on older records. */
  readonly threadedBy?: ThreadedBy;
}

/**
 * How an inbound mail was addressed to its agent (shared/gate/addressed.ts): `signed` (a signed To/Cc names it),
 * `reply` (an unsigned In-Reply-To names mail the agent sent this sender), `envelope` (named only in an unsigned
 * To/Cc, signed Date fresh), `bcc` (the agent accepts Bcc), `forwarded` (through a trusted ARC sealer).
 */
export type AddressingKind = "signed" | "reply" | "envelope" | "bcc" | "forwarded";

/**
 * `signed`: by signed In-Reply-To/References; `own-message-id`: an unsigned one naming mail this agent sent to the
 * sender (docs/gate.md); `none`: it started a thread.
 */
export type ThreadedBy = "signed" | "own-message-id" | "none";

export type MessagePutResult = Ok | Fail<"duplicate">;

/** The agents' mailboxes (shared/store/message-repo.ts). */
export interface MessageStore {
  /** Conditional on the id being new: a redelivery finds `duplicate`. */
  put(msg: MessageRecord): Promise<MessagePutResult>;
  get(agent: string, id: string): Promise<MessageRecord | null>;
  /** Oldest first; with `newest`, only the newest N of the thread (still oldest first). */
  listByThread(agent: string, threadId: string, opts?: { newest?: number }): Promise<MessageRecord[]>;
  /** Newest first. */
  listByAgent(agent: string, opts?: { limit?: number }): Promise<MessageRecord[]>;
}

/**
 * Bodies up to this size are kept on the message item instead of in S3 (an S3 PUT costs as much as eight
 * DynamoDB write units, and each body was read back with a GET). 2 KiB adds at most two write units to the item
 * and two to its `byThread` index copy; most mail bodies, and nearly every reply an agent writes, fit.
 */
export const INLINE_BODY_MAX_BYTES = 2048;

/**
 * A sent mail's body rides in its send plan, which every state transition of the send item rewrites (and DynamoDB
 * charges an update by the larger of the item's sizes): 1 KiB keeps that at most one unit more per transition.
 */
export const SENT_INLINE_BODY_MAX_BYTES = 1024;

/** `text` when it is short enough to keep on the item, else undefined (it goes to S3). */
export function inlineBody(text: string, max: number = INLINE_BODY_MAX_BYTES): string | undefined {
  return Buffer.byteLength(text, "utf8") <= max ? text : undefined;
}

/** A stored message's body text: kept on the item, or read from S3 (null when the object is missing). */
export function bodyText(
  m: Pick<MessageRecord, "body" | "bodyKey">,
  getText: (key: string) => Promise<string | null>,
): Promise<string | null> {
  return m.body !== undefined ? Promise.resolve(m.body) : getText(m.bodyKey);
}
