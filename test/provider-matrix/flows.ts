// The flows each provider's mail is run through, and what a cell of the matrix records.

import type { AddressingKind, ThreadedBy } from "../../shared/ports/index.ts";

export const FLOWS = ["fresh", "reply", "reply-all", "forward", "list", "auto-forward"] as const;
export type Flow = (typeof FLOWS)[number];

export const FLOW_TITLES: Record<Flow, string> = {
  fresh: "new mail to the agent",
  reply: "reply to the agent's mail",
  "reply-all": "new mail, a colleague in Cc",
  forward: "a person forwards a third party's mail",
  list: "list mail (list rewrote Subject and body)",
  "auto-forward": "auto-forward (a rule re-delivers mail sent to someone else)",
};

/** Who the agent's reply-all would write to, by role in the flow. */
export type Reach = "sender" | "colleague";

export type Cell =
  | {
      readonly verdict: "accept";
      readonly addressing: AddressingKind;
      /** What the stored mail says found its thread (`threadedBy`). */
      readonly threadedBy: ThreadedBy;
      /** Whether it joined the thread of the mail it answers (the reply flow's; no other flow names one). */
      readonly joined: boolean;
      readonly reaches: readonly Reach[];
    }
  | { readonly verdict: "refuse" | "drop"; readonly reason: string }
  /** The corpus holds no signature of this shape (the fixture says why). */
  | { readonly verdict: "not-seen" }
  /** A list manager sends no mail of its own in this flow. */
  | { readonly verdict: "n/a" };
