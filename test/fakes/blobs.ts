import type { BlobStore } from "../../shared/store/blob-store.ts";

/** The mail bucket as its users see it (BlobStore). */
export type BlobPort = Pick<BlobStore, "put" | "get" | "getText" | "putJson" | "getJson">;

export interface MemoryBlobs extends BlobPort {
  readonly objects: Map<string, { readonly bytes: Uint8Array; readonly contentType?: string }>;
  /** Keys read, in order (a search reads bodies within a budget; a test can count them). */
  readonly reads: string[];
}

/**
 * The bucket over a map: exact bytes in, a copy out, null for a missing key, strings stored as UTF-8. Run against
 * the real one (S3 in fauxqs) by test/contracts/blobs.contract.ts.
 */
export function memoryBlobs(): MemoryBlobs {
  const objects = new Map<string, { bytes: Uint8Array; contentType?: string }>();
  const reads: string[] = [];
  const get = async (key: string) => {
    reads.push(key);
    const o = objects.get(key);
    return o ? new Uint8Array(o.bytes) : null;
  };
  const getText = async (key: string) => {
    const bytes = await get(key);
    return bytes === null ? null : new TextDecoder("utf-8").decode(bytes);
  };
  const put = async (key: string, bytes: Uint8Array | string, contentType?: string) => {
    const copy = typeof bytes === "string" ? new TextEncoder().encode(bytes) : new Uint8Array(bytes);
    objects.set(key, { bytes: copy, ...(contentType ? { contentType } : {}) });
  };
  return {
    objects,
    reads,
    put,
    get,
    getText,
    putJson: (key, value) => put(key, JSON.stringify(value), "application/json"),
    async getJson(key) {
      const text = await getText(key);
      return text === null ? null : (JSON.parse(text) as unknown);
    },
  };
}
