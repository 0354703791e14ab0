// Ports: the record shapes and store interfaces the cores (agent, intake, outbound) are written against.
// shared/store implements them over DynamoDB and S3; test/fakes implements them in memory.

/** Bodies, attachments, raw mail and transcripts in the mail bucket (shared/store/blob-store.ts). */
export interface Blobs {
  put(key: string, bytes: Uint8Array | string, contentType?: string): Promise<void>;
  /** null when the key does not exist. */
  get(key: string): Promise<Uint8Array | null>;
  getText(key: string): Promise<string | null>;
}
