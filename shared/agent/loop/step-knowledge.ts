import type { StepPayload } from "../../payloads/index.ts";
import type { EgressChannel } from "../ports.ts";

/**
 * What a step message tells a round without a read: `fresh` (round 1 of a run just created: no transcript saved),
 * `noPlan` (nothing proposed in the run, so its end need not read the plan store, G14), `channelOpen` (no channel
 * closed, G18). Only an optimisation: each saves a read, and a message without them reads instead. Heeded only on
 * a round's first claim (a take-over cannot know what the crashed delivery did). A new run's first message
 * sets all three (firstStepOf, shared/payloads); after that this module is the one place that reads or writes them.
 */
export type StepKnowledge = Pick<StepPayload, "fresh" | "noPlan" | "channelOpen">;

/** What this delivery may heed of its message: all of it on the round's first claim, nothing on a take-over. */
export function knownOnClaim(msg: StepPayload, firstClaim: boolean, channel?: EgressChannel): StepKnowledge {
  const known: StepKnowledge = firstClaim
    ? {
        ...(msg.fresh ? { fresh: true } : {}),
        ...(msg.noPlan ? { noPlan: true } : {}),
        ...(msg.channelOpen ? { channelOpen: true } : {}),
      }
    : {};
  channel?.assume(msg.runId, known.channelOpen === true);
  return known;
}

/** Whether round 1's run was just created (no transcript saved), as far as its message says. */
export const justCreated = (known: StepKnowledge): boolean => known.fresh === true;

/** No operation proposed in the run so far, as this delivery knows without reading the plan store. */
export const noPlanYet = (known: StepKnowledge, proposals: { readonly made: boolean }): boolean =>
  known.noPlan === true && !proposals.made;

/** What this delivery knows without a read, for the next round's first claim. */
export function knowledgeForNextRound(
  runId: string,
  known: StepKnowledge,
  proposals: { readonly made: boolean },
  channel?: EgressChannel,
): StepKnowledge {
  return {
    ...(noPlanYet(known, proposals) ? { noPlan: true } : {}),
    ...(channel?.knownOpen(runId) ? { channelOpen: true } : {}),
  };
}
