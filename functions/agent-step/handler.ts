import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { z } from "zod";
import type { ApplyOutcome, ConfirmMessage } from "../../shared/agent/apply-plan.ts";
import type { StepDeps } from "../../shared/agent/ports.ts";
import { runStep } from "../../shared/agent/step.ts";
import { resourcesFromEnv } from "../../shared/config/resources.ts";
import { loadRuntimeConfig } from "../../shared/config/runtime.ts";
import { awsSecretSource } from "../../shared/model/aws-secret-source.ts";
import { type FunctionLogger, makeLogger } from "../../shared/runtime/logger.ts";
import { defaultRegistry, defaultResolvers } from "../registry.ts";
import { buildStepDeps } from "./deps.ts";

const stepMessage = z.object({ runId: z.string().min(1).max(200), round: z.number().int().min(1).max(1000) });
/** EventBridge Scheduler (and the local timer) send one tick a minute: start the responsibilities due. */
const tickMessage = z.object({ tick: z.iso.datetime({ offset: true }) });

/** An approver's reply, forwarded by verify (G14). */
const confirmMessage = z.object({
  confirm: z.object({
    code: z.string().min(1).max(40),
    action: z.enum(["approve", "cancel", "unclear"]),
    understood: z.enum(["nothing", "conflicting", "several-codes"]).optional(),
    replyId: z.string().min(1).max(200),
    hop: z.number().int().min(0).max(1_000_000),
    sender: z.string().min(3).max(320),
    agent: z.string().min(3).max(320),
    agentOriginated: z.boolean(),
  }),
});

export type StepHandlerDeps = StepDeps & {
  startDue(tick: Date): Promise<{ started: string[]; invalid: string[] }>;
  applyConfirm(msg: ConfirmMessage): Promise<ApplyOutcome>;
};

/** SQS batch in, partial batch response out. `busy` and retryable failures go back to the queue. */
/** The queue's redrive maxReceiveCount (set by CDK; the local stack passes its own). */
export const MAX_RECEIVES_ENV = "POSTERN_MAX_RECEIVES";

export function createStepHandler(
  deps: StepHandlerDeps,
  logger: FunctionLogger,
  maxReceives = Number(process.env[MAX_RECEIVES_ENV] ?? 5),
) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
    for (const record of event.Records) {
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        body = null;
      }
      const fail = () => batchItemFailures.push({ itemIdentifier: record.messageId });
      // Any exception leaves the record to SQS: redelivered, and after maxReceiveCount kept in the DLQ.
      const guarded = async (what: string, work: () => Promise<boolean | undefined>): Promise<void> => {
        try {
          if ((await work()) === false) fail();
        } catch (err) {
          logger.error(`${what} failed; SQS will redeliver`, { error: String((err as Error)?.stack ?? err) });
          fail();
        }
      };
      const tick = tickMessage.safeParse(body);
      const confirm = confirmMessage.safeParse(body);
      const step = stepMessage.safeParse(body);
      if (tick.success) {
        await guarded("schedule tick", async () => {
          logger.info("schedule tick", {
            tick: tick.data.tick,
            ...(await deps.startDue(new Date(tick.data.tick))),
          });
          return true;
        });
      } else if (confirm.success) {
        const c = confirm.data.confirm;
        await guarded("plan confirmation", async () => {
          logger.info("plan confirmation", { code: c.code, by: c.sender, ...(await deps.applyConfirm(c)) });
          return true;
        });
      } else if (step.success) {
        logger.appendKeys({ runId: step.data.runId });
        const before = batchItemFailures.length;
        await guarded("agent step", async () => {
          const outcome = await runStep(step.data, deps);
          logger.info("agent step", { round: step.data.round, ...outcome });
          // busy (another delivery holds the round) and retryable model failures: back to the queue.
          return outcome.status !== "busy" && outcome.status !== "retry";
        });
        // The last delivery failed too: SQS moves the message to the DLQ (kept as evidence, alarmed on); the run
        // must not stay `running` for ever, so it ends `failed` with a reason an operator can search for.
        if (
          batchItemFailures.length > before &&
          Number(record.attributes?.ApproximateReceiveCount ?? 0) >= maxReceives
        ) {
          logger.error("agent step retries exhausted; run failed, message goes to the DLQ", {
            runId: step.data.runId,
          });
          await deps.runs
            .finish(step.data.runId, "failed", "step-retries-exhausted")
            .catch((err: unknown) => {
              logger.error("could not mark the run failed", { runId: step.data.runId, error: String(err) });
            });
          await deps.events.append(step.data.runId, {
            type: "run-finished",
            round: step.data.round,
            data: { state: "failed", reason: "step-retries-exhausted" },
          });
        }
        logger.removeKeys(["runId"]);
      } else {
        logger.error("unusable agent-step message", { sqsMessageId: record.messageId });
        fail();
      }
    }
    return { batchItemFailures };
  };
}

let lambdaHandler: ((event: SQSEvent) => Promise<SQSBatchResponse>) | undefined;

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  if (!lambdaHandler) {
    const logger = makeLogger("postern-agent-step");
    const deps = buildStepDeps({
      resources: resourcesFromEnv(),
      loaded: loadRuntimeConfig(),
      registry: defaultRegistry(),
      resolvers: defaultResolvers(),
      secrets: awsSecretSource(),
      logger,
    });
    lambdaHandler = createStepHandler(deps, logger);
  }
  return lambdaHandler(event);
}
