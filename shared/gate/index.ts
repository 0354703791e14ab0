// Front door of shared/gate: the inbound gate, the access algebra, outbound reach and the fence. Outside this
// folder, import this file only (docs/architecture.md).

export { evaluateLayer, routingKey } from "./access.ts";
export { narrowsRun } from "./addressed.ts";
export {
  type FenceNote,
  HTML_ONLY_NOTICE,
  LINE_PREFIX,
  looksLikeAddress,
  normaliseUntrusted,
  renderMessage,
  renderRefusal,
  renderUntrusted,
  shownDisplayName,
  type UntrustedPart,
} from "./fence.ts";
export { type Decision, gateMessage } from "./gate.ts";
export {
  checkOutboundReach,
  type OutboundReachReason,
  type ReplyAudience,
  replyAudience,
} from "./outbound-reach.ts";
export type { ProofVia } from "./sender-proof.ts";
