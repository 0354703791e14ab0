import { parseScript } from "../../shared/model/script.ts";
import { scriptedModel } from "../../shared/model/scripted.ts";
import type { ModelProvider, ModelRequest, ModelResult } from "../../shared/model/types.ts";

export interface RecordingModel extends ModelProvider {
  /** Every request, in order (vercel/ai's `doGenerateCalls`). */
  readonly calls: ModelRequest[];
  /** Answers handed out before the script's, first in first out: a throttle, an outage, for one call each. */
  readonly queued: ModelResult[];
}

/**
 * The scripted provider (turns chosen by the transcript, so a redelivered round gets the same turn) behind a
 * recorder. `turns` is a model script's `turns` (shared/model/script.ts).
 */
export function recordingModel(turns: readonly unknown[], name = "demo"): RecordingModel {
  const script = scriptedModel(parseScript({ turns }), name);
  const calls: ModelRequest[] = [];
  const queued: ModelResult[] = [];
  return {
    ...script,
    calls,
    queued,
    async generate(request) {
      calls.push(request);
      return queued.shift() ?? script.generate(request);
    },
  };
}
