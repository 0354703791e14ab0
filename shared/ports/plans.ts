import type { AddressingKind, MessageProof, ThreadedBy } from "./messages.ts";
// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

/** One proposed operation: exactly the tool and the validated arguments the model asked for. */
export interface PlanOperation {
  readonly callId: string;
  readonly tool: string;
  readonly input: unknown;
  readonly summary: string;
}

export type PlanState =
  | "open"
  | "pending"
  | "applying"
  | "applied"
  | "failed"
  | "cancelled"
  | "expired"
  | "tampered"
  | "unconfirmable";

export interface StoredOperation extends PlanOperation {
  /** Toolkits that granted the tool when it was proposed: their approvers may confirm it. */
  readonly toolkits: readonly string[];
}

/**
 * One operation's outcome as the plan keeps it, numbered as the card numbers them (from 1). `failed`: the tool
 * returned a failure, threw, timed out or a gate refused it at apply; `not-run`: an earlier operation failed, so
 * this one was never started (later operations may depend on it).
 */
export interface PlanOpResult {
  readonly number: number;
  readonly tool: string;
  readonly status: "ok" | "failed" | "not-run";
  /** `failed`: the reason code (docs/reasons.md, or the tool's own). */
  readonly reason?: string;
  /** `failed`: the tool's or the gate's detail, one line, capped: the tool's words, not the engine's. */
  readonly detail?: string;
  /** When it finished (ISO); absent for `not-run`. */
  readonly at?: string;
}

/**
 * Who asked for a plan, as the engine proved it (G2), for the approver to read beside the card: copied once, when
 * the card is sealed, from the stored message that started the run. Each field says only what was recorded; a
 * message stored before a field existed leaves it absent, and the card and the console say "not recorded".
 */
export interface RequesterProof {
  /** The DKIM-proven From address, and its display name (sender-written). */
  readonly address: string;
  readonly displayName?: string;
  /** How verify proved it (the DKIM domain; which of To, Cc and threading were signed), when it recorded that. */
  readonly proof?: MessageProof;
  /** How the asking mail was addressed to the agent, and how it found its thread (shared/gate/addressed.ts). */
  readonly addressing?: AddressingKind;
  readonly threadedBy?: ThreadedBy;
  /** The asking message: its mailbox id, thread, subject (sender-written) and when it arrived. */
  readonly messageId: string;
  readonly threadId: string;
  readonly subject: string;
  readonly receivedAt: string;
  /** The asking text (sender-written), cut to `ASKING_TEXT_MAX` characters; `askingCut` when it was longer. */
  readonly asking: string;
  readonly askingCut?: boolean;
}

const THREADING: Record<MessageProof["signed"]["threading"], string> = {
  signed: "signed",
  unsigned: "NOT signed (read as absent: a new thread)",
  none: "none (a new conversation)",
};

const ADDRESSING: Record<AddressingKind, string> = {
  signed: "addressed by a signed To/Cc",
  reply: "addressed as a reply to mail the agent sent them (To/Cc not signed)",
  envelope: "addressed by the envelope only (To/Cc not signed)",
  bcc: "not named in To/Cc (the agent accepts Bcc)",
  forwarded: "forwarded through a trusted ARC sealer",
};

const THREADED_BY: Record<ThreadedBy, string> = {
  signed: "threaded by signed fields",
  "own-message-id": "threaded by the agent's own Message-ID",
  none: "a thread of its own",
};

/** How a requester was proven, in the engine's words: the card, the console and the CLI say it alike. */
export function proofLine(r: Pick<RequesterProof, "proof" | "addressing" | "threadedBy">): string {
  const how = [
    ...(r.addressing ? [ADDRESSING[r.addressing] ?? r.addressing] : []),
    ...(r.threadedBy ? [THREADED_BY[r.threadedBy] ?? r.threadedBy] : []),
  ];
  const tail = how.length > 0 ? `; ${how.join(", ")}` : "";
  if (!r.proof) return `proven by DKIM (the details were not recorded for this mail)${tail}`;
  const { dkimDomain, signed } = r.proof;
  const said = (b: boolean) => (b ? "signed" : "NOT signed");
  return `DKIM signature of ${dkimDomain}; To ${said(signed.to)}, Cc ${said(signed.cc)}, threading ${THREADING[signed.threading]}${tail}`;
}

/** How much of the asking mail's text a plan keeps to show the approver (the whole mail is in the thread). */
export const ASKING_TEXT_MAX = 2000;

export interface PlanRecord {
  readonly runId: string;
  readonly agent: string;
  readonly state: PlanState;
  readonly ops: readonly StoredOperation[];
  readonly code?: string;
  readonly hash?: string;
  readonly expiresAtIso?: string;
  /** When the first operation was proposed (absent on plans written before the console's index). */
  readonly planAt?: string;
  /** Who decided it (the approver's routing key), once decided. */
  readonly decidedBy?: string;
  /** When the approver's decision was acted on (ISO): applying started, or the plan was cancelled. */
  readonly decidedAt?: string;
  /** The reply (and approver) that moved the plan to applying: only its redelivery may finish an interrupted apply. */
  readonly decidedReply?: string;
  /** Applied or failed: when the last operation finished, and every operation's outcome in card order. */
  readonly finishedAt?: string;
  readonly results?: readonly PlanOpResult[];
  /** `failed`: why (the first failed operation's reason, or the engine's: `agent-missing`). */
  readonly failedReason?: string;
  /** Who asked (absent for a scheduled run's plan, and on plans sealed before it was recorded). */
  readonly requester?: RequesterProof;
}

/** A stored plan item as a PlanRecord: the one reading of it, for the store, its fake and the console's index. */
export function planFromItem(runId: string, i: Readonly<Record<string, unknown>>): PlanRecord {
  return {
    runId,
    agent: String(i.agent),
    state: i.state as PlanState,
    ops: (i.ops ?? []) as StoredOperation[],
    ...(i.code ? { code: String(i.code) } : {}),
    ...(i.hash ? { hash: String(i.hash) } : {}),
    ...(i.expiresAtIso ? { expiresAtIso: String(i.expiresAtIso) } : {}),
    ...(i.planAt ? { planAt: String(i.planAt) } : {}),
    ...(i.decidedBy ? { decidedBy: String(i.decidedBy) } : {}),
    ...(i.decidedAt ? { decidedAt: String(i.decidedAt) } : {}),
    ...(i.decidedReply ? { decidedReply: String(i.decidedReply) } : {}),
    ...(i.finishedAt ? { finishedAt: String(i.finishedAt) } : {}),
    ...(Array.isArray(i.results) ? { results: i.results as PlanOpResult[] } : {}),
    ...(i.failedReason ? { failedReason: String(i.failedReason) } : {}),
    ...(i.requester ? { requester: i.requester as RequesterProof } : {}),
  };
}

/** The plans (G14) as applying a confirmation needs them: a plan moves only by a conditional state change. */
export interface PlanPort {
  runForCode(code: string): Promise<{ runId: string; agent: string } | null>;
  get(runId: string): Promise<PlanRecord | null>;
  move(runId: string, from: PlanState, to: PlanState, attrs?: Record<string, unknown>): Promise<boolean>;
}

/** The plans as proposing and sealing need them too. */
export interface PlanBook extends PlanPort {
  /** Append an operation while the plan is open; once per call id. */
  add(runId: string, agent: string, op: StoredOperation): Promise<"added" | "duplicate" | "closed">;
  /** open → pending with the card's code and the hash it is bound to. */
  seal(
    runId: string,
    agent: string,
    sealed: { code: string; hash: string; expiresAtIso: string; requester?: RequesterProof },
  ): Promise<boolean>;
}
