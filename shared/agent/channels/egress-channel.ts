import { STATE_KEYS } from "../../config/index.ts";
import type { Logger } from "../../logger.ts";
import type { KeyValueState } from "../../ports/index.ts";
import type { ClosedBecause, EgressChannel, TraceSink } from "../ports.ts";

/** How long a run's closed-channel marker is kept: well past any run's life (runs end within hours). */
const CLOSED_TTL_SECONDS = 30 * 24 * 3600;

const markerPk = STATE_KEYS.channel;

/**
 * G18's channel state in the `state` table: one conditional write when a run's channels close (so only the first
 * closing is traced), read back by every later check, in this round and the next ones. Closing never fails
 * silently: a write error propagates, so the read that caused it returns nothing.
 */
export function egressChannel(deps: {
  readonly state: KeyValueState;
  readonly trace: TraceSink;
  readonly logger: Logger;
  readonly now: () => Date;
}): EgressChannel {
  const closed = new Set<string>();
  // Runs this delivery knows open without a read (its message said so on the round's first claim).
  const open = new Set<string>();
  return {
    assume(runId, isOpen) {
      if (isOpen) open.add(runId);
      else open.delete(runId);
    },
    knownOpen: (runId) => open.has(runId) && !closed.has(runId),
    async close(runId: string, because: ClosedBecause) {
      open.delete(runId);
      if (closed.has(runId)) return;
      const put = await deps.state.putIfAbsent(
        markerPk(runId),
        "closed",
        { because, at: deps.now().toISOString() },
        CLOSED_TTL_SECONDS,
      );
      closed.add(runId);
      if (!put.ok) return;
      deps.logger.info("run channels closed", { runId, reason: "egress-channel-closed", because });
      await deps.trace.append(runId, { type: "channel-closed", round: 0, data: { because } });
    },
    async isClosed(runId: string) {
      if (closed.has(runId)) return true;
      if (open.has(runId)) return false;
      const item = await deps.state.get(markerPk(runId), "closed");
      if (item) closed.add(runId);
      return item !== null;
    },
  };
}
