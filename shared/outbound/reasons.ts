import type { OutboundReachReason } from "../gate/index.ts";
import type { ComposeFailureReason, RecipientReason } from "../mail/index.ts";

/** Why a request can never be sent; stable codes, recorded on the state item and logged. */
export type PrepareFailureReason =
  | "agent-unknown"
  | "agent-disabled"
  | "domain-unregistered"
  | "reply-target-not-found"
  | "reply-target-not-inbound"
  | "reply-target-missing"
  | "subject-on-reply"
  | "notice-malformed"
  | "attachment-not-found"
  | OutboundReachReason
  | RecipientReason
  | ComposeFailureReason;

/**
 * What the state item keeps (docs/outbound.md): why a send ended `failed` (a prepare refusal, or SES's code as
 * `ses-rejected:<code>`) or `unknown` (no answer from SES, or a worker that crashed while sending).
 */
export type SendStateReason =
  | PrepareFailureReason
  | `ses-rejected:${string}`
  | "ses-no-answer"
  | "crashed-while-sending";
