import type { AccessRule, DeploymentConfig } from "../../config/index.ts";
import type { Logger } from "../../logger.ts";
import type { OutboundRequest } from "../../payloads/index.ts";
import type { FactStore, Mailbox } from "../../tool-framework/index.ts";
import type { MailScope } from "../mailbox/mail-scope.ts";
import type { ChannelState } from "../ports.ts";

/** A stored message a reply answers, as far as its reach matters: the proven sender and the signed To/Cc. */
export interface ReplyParticipants {
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
}

export interface ToolContextPorts {
  readonly config: DeploymentConfig;
  readonly logger: Logger;
  /** Facts of one agent in one scope (its thread, or the run when it has none). */
  facts(agent: string, scope: string): FactStore;
  /**
   * The agent's own mailbox, bound to the run's thread (G12) and read with the call's eyes:
   * `onWiderRead` is called before it returns mail wider than the run's sender could see.
   */
  mailbox(scope: {
    agent: string;
    threadId: string | null;
    runId: string;
    scope: MailScope;
    onWiderRead: () => Promise<void>;
  }): Mailbox;
  /** G18: where a run's closed channels are recorded. */
  readonly channel: ChannelState;
  sendOutbound(request: OutboundRequest): Promise<void>;
  /**
   * The agent's outbound rules (admin table `outboundRules`, validated, fail-closed), read when a send is asked
   * for, so an operator's change applies to the next send.
   */
  outboundRules(agent: string): Promise<readonly AccessRule[]>;
  /** The agent's stored message a reply answers (its automatic participants), or null. */
  replyParticipants(agent: string, messageId: string): Promise<ReplyParticipants | null>;
}
