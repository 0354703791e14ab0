import type { Fail, Ok } from "../result.ts";
// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

/** One raw item of the `state` table. */
export type Item = Record<string, unknown>;

export type PutIfAbsentResult = Ok | Fail<"duplicate", { readonly existing: Item | null }>;

/** Single-item, conditional key-value state (shared/store/state-repo.ts): claims, markers, file metadata. */
export interface KeyValueState {
  /** Write only if no live item has the key (an expired one counts as absent). */
  putIfAbsent(pk: string, sk: string, attrs?: Item, ttlSeconds?: number): Promise<PutIfAbsentResult>;
  /** null when absent or expired. */
  get(pk: string, sk: string): Promise<Item | null>;
}
