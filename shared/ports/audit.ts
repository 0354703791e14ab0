// Ports: the console's audit log of admin changes and plan decisions (shared/store/audit-repo.ts).

import type { Page, PageRequest } from "./lists.ts";

/** One admin change: who made it, when, on what, and the item before and after (null when absent). */
export interface AuditEntry {
  readonly stream: string;
  /** Sort key: `<ISO time>#<random>`, so entries list in time order and never collide. */
  readonly at: string;
  readonly actor: string;
  /** `put` (add or edit) or `delete`; a plan decision is `plan-apply` / `plan-cancel`. */
  readonly action: string;
  readonly table: string;
  /** The item's key as text (`address=...`, `agent=... rule=...`). */
  readonly key: string;
  readonly before: unknown;
  readonly after: unknown;
  /** `recorded` before the change is made, then `applied` or `failed` (with `detail`). */
  readonly outcome: "recorded" | "applied" | "failed";
  readonly detail?: string;
}

export type NewAuditEntry = Omit<AuditEntry, "stream" | "at" | "outcome">;

/**
 * The audit log: an entry is recorded before the change it describes and settled after it, so a change is never
 * made without a record.
 */
export interface AuditLog {
  record(entry: NewAuditEntry): Promise<AuditEntry>;
  settle(entry: AuditEntry, outcome: "applied" | "failed", detail?: string): Promise<void>;
  /** Newest first. */
  list(req: PageRequest): Promise<Page<AuditEntry>>;
}
