import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import type { KeyedLogger } from "../logger.ts";
import { sqsBatchHandler } from "../payloads/index.ts";
import { handleAgentStepPayload, type StepHandlerDeps } from "./handle-message.ts";

/** The queue's redrive maxReceiveCount (set by CDK; the local stack passes its own). */
export const MAX_RECEIVES_ENV = "POSTERN_MAX_RECEIVES";

export function maxReceivesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env[MAX_RECEIVES_ENV] ?? 5);
}

export interface AgentStepSqsOptions {
  readonly logger: KeyedLogger;
  /** The queue's redrive maxReceiveCount (maxReceivesFromEnv in Lambda). */
  readonly maxReceives: number;
}

/**
 * SQS batch in, partial batch response out: each record to handleAgentStepPayload, with its receive count so the
 * last delivery of a failing step can end its run. Shared by the Lambda handler and the local stack's poller.
 */
export function agentStepSqsHandler(
  deps: StepHandlerDeps,
  options: AgentStepSqsOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const { logger, maxReceives } = options;
  return sqsBatchHandler(
    (record, scope) =>
      handleAgentStepPayload(
        {
          body: record.body,
          id: record.messageId,
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 0),
        },
        deps,
        { maxReceives, logger, scope },
      ),
    { logger, name: "agent-step message" },
  );
}
