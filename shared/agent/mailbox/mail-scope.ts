import type { ToolkitItem } from "../../admin/index.ts";
import { routingKey } from "../../mail/index.ts";
import type { MessageRecord } from "../../ports/index.ts";
import type { LoadedRun } from "../ports.ts";

/**
 * Whose eyes a read of stored mail uses (same eyes). Two allowed senders of one agent are not one person:
 * a run started by a sender's mail sees only what that sender could already see. A toolkit may widen its own tools'
 * reads to the agent's whole archive (`archiveScope: "agent"`, for staff-only toolkits); a scheduled run has no
 * sender and reads what its responsibility declares (default: nothing).
 * - `sender`: mail the sender sent, or that was sent to them (From, To, Cc, or Bcc of the agent's own mail).
 * - `agent`: the agent's whole archive; `sender` is who the run answers, so a read wider than them is noticed (G18).
 * - `none`: no stored mail.
 */
export type MailScope =
  | { readonly kind: "sender"; readonly sender: string }
  | { readonly kind: "agent"; readonly sender: string | null }
  | { readonly kind: "none" };

type Addressed = Pick<MessageRecord, "from" | "to" | "cc" | "bcc">;

/** Could `sender` (a routing key) already see this message? By routing key, so +tags and case do not matter. */
export function seenBy(sender: string, m: Addressed): boolean {
  const people = [m.from, ...(m.to ?? []), ...(m.cc ?? []), ...(m.bcc ?? [])];
  return people.some((a) => routingKey(a) === sender);
}

/** May a read in `scope` return this message? */
export function inScope(scope: MailScope, m: Addressed): boolean {
  if (scope.kind === "none") return false;
  if (scope.kind === "agent") return true;
  return seenBy(scope.sender, m);
}

/**
 * The run's sender's own eyes, whatever a toolkit widened (read_email): the eyes round 1's context reads
 * thread history with. A widened `agent` scope narrows back to its sender; without a sender (a scheduled run) there
 * is no one whose eyes to use, so nothing.
 */
export function senderEyes(scope: MailScope): MailScope {
  if (scope.kind === "agent")
    return scope.sender === null ? { kind: "none" } : { kind: "sender", sender: scope.sender };
  return scope;
}

/** Is this message wider than the run's own sender's view (so reading it closes the run's channels, G18)? */
export function widerThanSender(scope: MailScope, m: Addressed): boolean {
  if (scope.kind !== "agent") return false;
  return scope.sender === null || !seenBy(scope.sender, m);
}

/**
 * The scope of one tool call: from the run's proven sender, widened only by a toolkit that granted this very call
 * (a staff toolkit's `archiveScope` does not leak into the same tool granted by a customer-facing toolkit).
 */
export function scopeForCall(run: LoadedRun, grantedBy: readonly ToolkitItem[]): MailScope {
  if (run.trigger.kind === "responsibility")
    return run.trigger.responsibility.archiveScope === "agent"
      ? { kind: "agent", sender: null }
      : { kind: "none" };
  if (!run.sender) return { kind: "none" };
  const sender = run.sender.routingKey;
  return grantedBy.some((k) => k.archiveScope === "agent")
    ? { kind: "agent", sender }
    : { kind: "sender", sender };
}
