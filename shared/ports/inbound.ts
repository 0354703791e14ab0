import type { Fail, Ok } from "../result.ts";
// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

export type InboundVerdict = "accept" | "refuse" | "drop";

/** What verify knows when it starts on one (SES message, envelope recipient) pair. */
export interface InboundClaim {
  readonly sesMessageId: string;
  readonly recipient: string;
  /** S3 key of the raw mail (`inbound/<sesMessageId>`). */
  readonly rawKey: string;
  readonly receivedAt: string;
}

/** The gate's outcome. `sender` is the routing key, set only once the sender is proven (G2); `reason` a code. */
export interface InboundOutcome {
  readonly verdict: InboundVerdict;
  readonly reason: string;
  readonly sender: string | null;
  readonly agent: string | null;
  /** Id of the stored message in the agent's mailbox (accept only). */
  readonly messageId: string | null;
  /** Engine-written detail of a refusal's reason (the signer of a misaligned signature, a duplicated field). */
  readonly detail?: string;
}

export interface InboundRecord extends InboundClaim {
  readonly status: "claimed" | "done";
  readonly claimedAt: string;
  readonly completedAt: string | null;
  readonly verdict: InboundVerdict | null;
  readonly reason: string | null;
  readonly sender: string | null;
  readonly agent: string | null;
  readonly messageId: string | null;
  /** A refusal's engine-written detail; absent when it has none, and on records written before it was kept. */
  readonly detail?: string;
}

export type ClaimResult =
  | { readonly ok: true; readonly record: InboundRecord }
  | Fail<"duplicate", { readonly existing: InboundRecord | null }>;

export type CompleteResult = Ok | Fail<"missing" | "already-done">;

/** One record per (SES message, recipient): verify claims it, then completes it with the gate's outcome. */
export interface InboundLedger {
  claim(claim: InboundClaim): Promise<ClaimResult>;
  complete(sesMessageId: string, recipient: string, outcome: InboundOutcome): Promise<CompleteResult>;
}

/** A refused or dropped mail as the console lists it: the verdict record, never the mail (G4). */
export type RefusalRecord = InboundRecord & { readonly refusalAt: string };
