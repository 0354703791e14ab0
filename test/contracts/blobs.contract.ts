import { describe, expect, it } from "vitest";
import type { BlobPort } from "../fakes/blobs.ts";
import { fresh } from "./ids.ts";

/** The mail bucket (BlobStore): raw mail, bodies, attachments, transcripts. */
export function blobsContract(make: () => BlobPort | Promise<BlobPort>): void {
  describe("BlobStore", () => {
    it("keeps bytes exact and returns null for a missing key", async () => {
      const blobs = await make();
      const key = `mail/${fresh("a")}/raw`;
      const bytes = new Uint8Array([0, 13, 10, 46, 255, 128]);
      await blobs.put(key, bytes, "application/octet-stream");
      bytes[0] = 7; // the caller's buffer is not the stored object
      expect(await blobs.get(key)).toEqual(new Uint8Array([0, 13, 10, 46, 255, 128]));
      expect(await blobs.get(`${key}-none`)).toBeNull();
      expect(await blobs.getText(`${key}-none`)).toBeNull();
      expect(await blobs.getJson(`${key}-none`)).toBeNull();
    });

    it("stores text as UTF-8 and round-trips JSON; a second put replaces the object", async () => {
      const blobs = await make();
      const key = `transcripts/${fresh("r")}.json`;
      await blobs.put(key, "grüße ✉");
      expect(await blobs.getText(key)).toBe("grüße ✉");
      expect(await blobs.get(key)).toEqual(new TextEncoder().encode("grüße ✉"));
      await blobs.putJson(key, { a: [1, "ü"], n: null });
      expect(await blobs.getJson(key)).toEqual({ a: [1, "ü"], n: null });
      await blobs.put(key, new Uint8Array());
      expect(await blobs.get(key)).toEqual(new Uint8Array());
    });
  });
}
