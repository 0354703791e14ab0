import { type BlobStore, transcriptKey } from "../../store/index.ts";
import type { Transcript, TranscriptStore } from "../ports.ts";

/** Transcripts in the bucket, each at the key its run's record names (derived from the run id). */
export function transcriptStore(blobs: BlobStore): TranscriptStore {
  return {
    load: async (runId) => (await blobs.getJson(transcriptKey(runId))) as Transcript | null,
    save: (runId, t) => blobs.putJson(transcriptKey(runId), t),
  };
}
