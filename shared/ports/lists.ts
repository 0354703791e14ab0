// Ports: the paged lists the console shows, each one Query on an index of shared/config/tables.ts (no page view
// scans a runtime table). shared/store/index-reads.ts implements them over DynamoDB.

import type { RefusalRecord } from "./inbound.ts";
import type { MessageRecord } from "./messages.ts";
import type { PlanRecord, PlanState } from "./plans.ts";
import type { RunRecord } from "./runs.ts";
import type { ThreadRecord } from "./threads.ts";

/** One page of a list, and the opaque cursor of the next one (null on the last page). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/** The lists the console pages through (shared/store/index-reads.ts). */
export interface IndexReader {
  /** An agent's runs, newest first. */
  runsByAgent(agent: string, req: PageRequest): Promise<Page<RunRecord>>;
  /** An agent's threads, most recently active first. */
  threadsByActivity(agent: string, req: PageRequest): Promise<Page<ThreadRecord>>;
  /** A thread's messages, oldest first, in the agent's own mailbox only (G12). */
  threadMessages(agent: string, threadId: string, req: PageRequest): Promise<Page<MessageRecord>>;
  /** Refused and dropped mail, newest first, optionally one reason code only, within `days` days of `today`. */
  refusals(
    req: PageRequest & { reason?: string | undefined; today: Date; days?: number },
  ): Promise<Page<RefusalRecord>>;
  /** Plans in one state (pending: waiting for an approver), newest first. */
  plansByState(state: PlanState, req: PageRequest): Promise<Page<PlanRecord>>;
}
