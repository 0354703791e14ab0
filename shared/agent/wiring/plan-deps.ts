import { failureReporter } from "../../store/index.ts";
import { egressChannel } from "../channels/egress-channel.ts";
import type { StepHandlerDeps } from "../handle-message.ts";
import { planCallChecks } from "../loop/call-checks.ts";
import { applyConfirmation } from "../plans/apply-plan.ts";
import { confirmNoticeRequest } from "../plans/confirm-notice.ts";
import { sendPlanCard } from "../plans/plan-card.ts";
import { proposeOperation } from "../plans/propose-operation.ts";
import { loadRequester } from "../plans/requester.ts";
import type { StepDeps } from "../ports.ts";
import { continueRun } from "../runs/continue-run.ts";
import type { Wired } from "./wired.ts";

/** G14: proposing, the card when a run ends, and an approver's reply, over the platform's plan store. */
export function planDeps(
  w: Wired,
  step: StepDeps,
): Pick<StepHandlerDeps, "propose" | "afterRun" | "applyConfirm"> {
  const { opts, stores, now } = w;
  const { plans } = stores;
  // Its own channel state, not the loop's: an approver's reply must not inherit what a round of the run assumed
  // from its message (the loop's channel knows "open" without a read); it reads the marker.
  const channel = egressChannel({ state: stores.state, trace: step.trace, logger: opts.logger, now });
  return {
    propose: proposeOperation({ plans, registry: opts.registry }),
    afterRun: sendPlanCard({
      plans,
      loadAdmin: w.loadAdmin,
      trace: step.trace,
      sendOutbound: w.sendOutbound,
      now,
      webhooks: w.webhooks,
      requester: loadRequester({ message: w.message, getText: (key) => stores.blobs.getText(key) }),
    }),
    applyConfirm: (msg) =>
      applyConfirmation(msg, {
        plans,
        loadAdmin: w.loadAdmin,
        registry: opts.registry,
        getRun: (id) => step.loadRun(id),
        checks: planCallChecks({ config: opts.loaded.config, registry: opts.registry, channel }),
        budgets: step.budgets,
        cache: step.cache,
        makeToolContext: (run, agent, call, key, grantedBy) =>
          step.makeToolContext(run, agent, 0, call, key, grantedBy),
        trace: step.trace,
        webhooks: w.webhooks,
        failures: failureReporter(stores, opts.logger, now),
        now,
        notify: (msg, reason) => w.sendOutbound(confirmNoticeRequest(msg, reason)),
        sendOutbound: w.sendOutbound,
        continueRun: continueRun({ transcripts: step.transcripts, runs: stores.runs, enqueue: step.enqueue }),
      }),
  };
}
