import { STATE_KEYS } from "../../config/index.ts";
import { failureReporter } from "../../store/index.ts";
import type { RunFailures } from "../ports.ts";
import { runFailures } from "../runs/run-failure.ts";
import type { Wired } from "./wired.ts";

/** The once-a-day mark of the run-failure notice: kept two days, past the day it is for. */
const NOTICE_MARK_TTL_SECONDS = 2 * 24 * 3600;

/** G19 for runs over the store: the failure reporter, the once-a-day notice mark, the run's own mail. */
export function runFailuresOverStore(w: Wired): RunFailures {
  const { stores, now, opts } = w;
  return runFailures({
    failures: failureReporter(stores, opts.logger, now),
    firstNoticeToday: async (agent, sender, day) =>
      (
        await stores.state.putIfAbsent(
          STATE_KEYS.runFailureNotice(agent, sender),
          day,
          {},
          NOTICE_MARK_TTL_SECONDS,
        )
      ).ok,
    isAutomatic: async (agent, id) => (await w.message(agent, id))?.automatic === true,
    sendOutbound: w.sendOutbound,
    now,
  });
}
