import type { AgentItem, ResponsibilityItem } from "../admin/index.ts";
import type { DeploymentConfig } from "../config/index.ts";
import type { Logger } from "../logger.ts";
import type { OutboundRequest } from "../payloads/index.ts";
import type { AddressingKind, MessageRecord } from "../ports/index.ts";
import type { Fail, Ok } from "../result.ts";

/** The proven sender of the message that started a run (G2/G17). Never model-supplied. */
export interface VerifiedSender {
  readonly address: string;
  /** Lower-cased, +tag stripped: what gates match on. */
  readonly routingKey: string;
  readonly displayName: string;
}

/** The accepted inbound message a reply run answers (metadata only; bodies stay in S3). */
export interface TriggerMessage {
  readonly id: string;
  readonly threadId: string;
  readonly subject: string | null;
  readonly headerMessageId: string | null;
  /**
   * How the gate found the mail addressed to the agent (shared/gate/addressed.ts); absent on mail stored before it
   * was recorded. `envelope` and `reply`: the signature covered no To/Cc naming the agent.
   */
  readonly addressing?: AddressingKind;
}

export type RunTrigger =
  | { readonly kind: "message"; readonly message: TriggerMessage }
  | { readonly kind: "responsibility"; readonly responsibility: ResponsibilityItem };

/**
 * The runtime's deliver refuses a send whose recipients the agent's outbound rules do not allow
 * (`recipient-not-allowed`, with a detail naming them: the model reads it); a queue error throws, and the
 * dispatcher makes it `tool-error`. send_email passes any refusal's code and detail through to the model.
 */
export type DeliverResult = Ok<{ readonly requestId: string }> | Fail<string>;

export interface AttachmentMeta {
  readonly id: string;
  readonly filename: string | null;
  readonly contentType: string;
  readonly size: number;
}

/** A stored mail as a tool sees it: its metadata, with attachments as their metadata (no storage keys). */
export type MailboxMessage = Pick<
  MessageRecord,
  "id" | "threadId" | "direction" | "from" | "to" | "cc" | "subject" | "at"
> & { readonly attachments: readonly AttachmentMeta[] };

/**
 * The agent's own mailbox, already bound to the run's agent (and thread) by the runtime: a tool cannot name
 * another agent's mail because nothing here takes an agent (G12).
 */
export interface Mailbox {
  search(query: {
    readonly text?: string;
    readonly participant?: string;
    readonly limit: number;
  }): Promise<readonly (MailboxMessage & { readonly snippet: string })[]>;
  /** Resolves only within this agent's mailbox; the current thread unless `anyThread`. Else null. */
  attachment(
    id: string,
    opts?: { readonly anyThread?: boolean },
  ): Promise<{ meta: AttachmentMeta; bytes: Uint8Array } | null>;
  /**
   * A message of the run's own thread that the run's sender could see, with its body text (read_email);
   * else null. Always with the sender's own eyes, even on a call a staff toolkit widened: it reads on from what
   * round 1's context showed, never further (wider reads are search_emails' and read_attachment's). An HTML-only
   * mail's text is "" (G8: its body is never shown).
   */
  threadMessage(id: string): Promise<{ readonly message: MailboxMessage; readonly text: string } | null>;
  /** Store a file the agent authored; it can then be attached by id. */
  createFile(file: {
    readonly filename: string;
    readonly contentType: string;
    readonly bytes: Uint8Array;
  }): Promise<AttachmentMeta>;
}

/** Facts an agent records about a thread, each with the sender's own words as evidence (G15). */
export interface FactStore {
  record(fact: {
    readonly fact: string;
    readonly evidence: string;
    readonly key: string;
  }): Promise<{ readonly id: string; readonly duplicate: boolean }>;
  list(): Promise<
    readonly { readonly id: string; readonly fact: string; readonly evidence: string; readonly at: string }[]
  >;
}

/**
 * One frozen context per tool call. Everything identity-bearing comes from the gate and the admin tables,
 * never from the model's arguments (G17).
 */
export interface ToolContext {
  readonly agent: AgentItem;
  readonly sender: VerifiedSender | null;
  readonly trigger: RunTrigger;
  readonly config: DeploymentConfig;
  readonly logger: Logger;
  readonly correlationId: string;
  readonly runId: string;
  readonly round: number;
  readonly callId: string;
  /** Stable across redeliveries of the same round: `<runId>:<round>:<callId>`. */
  readonly idempotencyKey: string;
  readonly mailbox: Mailbox;
  /** Facts recorded in this agent's thread (record_fact). Absent where no store is wired. */
  readonly facts?: FactStore;
  /**
   * Whether this call may reach `host` (lower-case) over the network (G18): true while the run's channels are open;
   * once they are closed, only hosts on the `egressHosts` of a toolkit that granted this call. The runtime checks
   * the first host of a tool that declares `network` itself; a tool asks this for every further host it would
   * contact (web_fetch: each redirect). Absent where no runtime is wired (then nothing further is refused).
   */
  reach?(host: string): Promise<boolean>;
  /** Queue a send; the runtime checks the recipients against the agent's outbound rules first. */
  deliver(
    request: Omit<
      OutboundRequest,
      "requestId" | "agent" | "correlationId" | "runId" | "channelClosed" | "recipientsFrom" | "startedBy"
    >,
  ): Promise<DeliverResult>;
}
