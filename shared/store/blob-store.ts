import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { Blobs } from "../ports/index.ts";

export interface BlobStoreDeps {
  readonly s3: S3Client;
  readonly bucket: string;
}

/** S3 "not there" errors; the SDK names them differently for GET (NoSuchKey) and for HEAD-like paths (NotFound). */
function isMissing(err: unknown): boolean {
  return err instanceof Error && (err.name === "NoSuchKey" || err.name === "NotFound");
}

/** Bodies, attachments, transcripts and raw mail in the mail bucket. Keys follow PREFIXES in tables.ts. */
export class BlobStore implements Blobs {
  readonly #s3: S3Client;
  readonly #bucket: string;

  constructor(deps: BlobStoreDeps) {
    this.#s3 = deps.s3;
    this.#bucket = deps.bucket;
  }

  async put(key: string, bytes: Uint8Array | string, contentType?: string): Promise<void> {
    await this.#s3.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: bytes,
        ...(contentType ? { ContentType: contentType } : {}),
      }),
    );
  }

  /** The object's exact bytes, or null when there is no such key. */
  async get(key: string): Promise<Uint8Array | null> {
    try {
      const r = await this.#s3.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      return r.Body ? await r.Body.transformToByteArray() : new Uint8Array();
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async getText(key: string): Promise<string | null> {
    const bytes = await this.get(key);
    return bytes === null ? null : new TextDecoder("utf-8").decode(bytes);
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.put(key, JSON.stringify(value), "application/json");
  }

  /** Parsed JSON, unvalidated: callers that need a shape parse it with their own schema. */
  async getJson(key: string): Promise<unknown> {
    const text = await this.getText(key);
    return text === null ? null : (JSON.parse(text) as unknown);
  }
}
