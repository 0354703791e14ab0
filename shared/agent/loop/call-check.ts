import type { ToolkitItem } from "../../admin/index.ts";
import type { FailWithDetail, Ok } from "../../result.ts";
import type { ToolResult } from "../../tool-framework/index.ts";

// The checks the dispatcher runs on a call, and the codes their refusals carry. A leaf: the checks (channels,
// egress, quote) and the dispatcher that runs them both import it, so neither imports the other.

/** Closed channels (G18): once a run read wider than its sender, only allow-listed hosts. */
export type ChannelReason = "egress-channel-closed";

/** The egress gate (G13). */
export type EgressReason =
  | "egress-unclassified"
  | "egress-classifier-error"
  | "egress-restricted-class"
  | "egress-record-content";

/** The quote check (G15). */
export type QuoteReason = "evidence-missing" | "evidence-too-short" | "evidence-not-quoted";

/** What refuses a call on its input or its result: the egress gate (G13), closed channels (G18), the quote check (G15). */
export type CheckReason = EgressReason | ChannelReason | QuoteReason;
/** A refusal's detail is what the model reads, so it is always there. */
export type CallCheckResult = Ok | FailWithDetail<CheckReason>;

/** A check run on validated input before the tool, or on its result after: egress (G13), quote (G15), ... */
export type CallCheck = (
  phase: "input" | "result",
  call: {
    readonly name: string;
    readonly input: unknown;
    readonly result?: ToolResult;
    /** The toolkits that granted this call (G11): their own settings (allow-lists, scopes) apply to it. */
    readonly grantedBy: readonly ToolkitItem[];
  },
) => Promise<CallCheckResult>;
