import type { Transcript, TranscriptStore } from "../../shared/agent/ports.ts";
import { type BlobPort, memoryBlobs } from "./blobs.ts";

/**
 * Transcripts as the wiring keeps them: JSON at `transcripts/<runId>.json` in the bucket (shared/agent/wiring.ts
 * builds the same adapter over the real BlobStore). Over the memory bucket by default.
 */
export function transcriptStore(
  blobs: BlobPort = memoryBlobs(),
): TranscriptStore & { readonly saves: string[] } {
  const saves: string[] = [];
  const key = (runId: string) => `transcripts/${runId}.json`;
  return {
    saves,
    load: async (runId) => (await blobs.getJson(key(runId))) as Transcript | null,
    async save(runId, t) {
      saves.push(runId);
      await blobs.putJson(key(runId), t);
    },
  };
}
