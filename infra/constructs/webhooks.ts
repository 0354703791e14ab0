import { Duration, Stack, Token } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { ENV } from "../../shared/config/index.ts";
import { WEBHOOK_SECRET_PREFIX } from "../../shared/ports/index.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";
import { PipelineFunction, type PipelineFunctionProps } from "./pipeline-function.ts";
import { ADMIN_TABLES, type StateTables } from "./state-tables.ts";
import { WorkQueue } from "./work-queue.ts";

/** The state-table partitions the worker uses (shared/webhooks/dynamo-state.ts, the failure feed, the admin version). */
export const WEBHOOK_STATE_KEYS = ["webhook-*", "failures#*", "admin#version"] as const;

export interface WebhooksProps {
  /** The events queue, made first by `Webhooks.eventsQueue` (every function's environment names it). */
  readonly queue: WorkQueue;
  readonly tables: StateTables;
  /** The function's code, config and environment, as the pipeline's (PipelineFunctionProps). */
  readonly function: Omit<PipelineFunctionProps, "source" | "timeout">;
}

/**
 * Signed events out (docs/events.md): the events queue the pipeline's functions emit to, its DLQ, and the worker
 * that fans each event out to its endpoints and delivers it. Retries are the worker's own (a visibility change per
 * attempt, up to 12 h each, 27 h 35 min in all; a breaker's wait re-sends the delivery, spending no receive), so the
 * queue's redrive is only a backstop for messages that kill the worker, and its stall alarm waits past the whole
 * schedule. Secrets are read from `postern/webhooks/*` only.
 */
export class Webhooks extends Construct {
  readonly queue: WorkQueue;
  readonly fn: PipelineFunction;

  /** A message older than the retry schedule (27 h 35 min) and a margin was not taken even by its last retry. */
  static readonly STALL_AFTER = Duration.hours(30);

  /**
   * The queue's maxReceiveCount: one receive per attempt (8, DEFAULT_POLICY) and 5 for crashes, as
   * shared/webhooks maxReceivesFor derives it (test/infra/stack.test.ts ties the two; infra may not import events).
   */
  static readonly MAX_RECEIVES = 13;

  /** Per attempt 10 s (DEFAULT_POLICY.timeoutMs); a batch of 5 attempts and their store writes fit in 90 s. */
  static readonly TIMEOUT = Duration.seconds(90);

  /** The events queue and its DLQ: made before the functions, whose environment names them. */
  static eventsQueue(scope: Construct, id: string): WorkQueue {
    return new WorkQueue(scope, id, {
      consumerTimeout: Webhooks.TIMEOUT,
      maxReceiveCount: Webhooks.MAX_RECEIVES,
      stallAfter: Webhooks.STALL_AFTER,
    });
  }

  /** The queue URLs every emitting function and the worker read (shared/config/resources.ts). */
  static environment(queue: WorkQueue): Record<string, string> {
    return {
      [ENV.eventsQueue]: queue.queue.queueUrl,
      [ENV.eventsDeadLetterQueue]: queue.deadLetterQueue.queueUrl,
    };
  }

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    this.queue = props.queue;
    this.fn = new PipelineFunction(this, "Deliver", {
      ...props.function,
      source: this.queue,
      timeout: Webhooks.TIMEOUT,
    });
    const { tables } = props;
    const { partition, region, account } = Stack.of(this);
    // Fan-out reads the endpoints from the admin snapshot; each delivery re-reads its endpoint by key.
    tables.grantScan(this.fn.fn, ...ADMIN_TABLES);
    tables.grant(this.fn.fn, ACTIONS.tableGet, ["webhooks"]);
    // The admin version (get), the deliveries record and breaker (put), the attempt counter and the probe claim
    // (update), the failure feed (put), and no other item family of the state table (dynamodb:LeadingKeys): not a
    // send's state, a plan or a budget. No run is touched: an undelivered event belongs to no run.
    this.fn.role.addToPolicy(
      new PolicyStatement({
        actions: [...ACTIONS.tableGet, ...ACTIONS.tablePut, ...ACTIONS.tableUpdate],
        resources: [tables.tables.state.tableArn],
        conditions: {
          "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [...WEBHOOK_STATE_KEYS] },
        },
      }),
    );
    // Fan-out sends per-endpoint deliveries to its own queue; spent retries go to the DLQ by the worker's hand.
    this.fn.role.addToPolicy(
      new PolicyStatement({
        actions: [...ACTIONS.queueSend],
        resources: [this.queue.queue.queueArn, this.queue.deadLetterQueue.queueArn],
      }),
    );
    // Signing secrets only (G16); the `*` also covers the `-??????` suffix Secrets Manager appends to an ARN.
    this.fn.role.addToPolicy(
      new PolicyStatement({
        actions: [...ACTIONS.secretRead],
        resources: [`arn:${partition}:secretsmanager:${region}:${account}:secret:${WEBHOOK_SECRET_PREFIX}*`],
      }),
    );
    const nag = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);
    acknowledgeNag(
      this.fn.role,
      `AwsSolutions-IAM5[Resource::arn:${nag(partition, "AWS::Partition")}:secretsmanager:${nag(region, "AWS::Region")}:${nag(account, "AWS::AccountId")}:secret:${WEBHOOK_SECRET_PREFIX}*]`,
      "One secret per endpoint, created by `postern webhooks add` after deploy: the names are not known at synth; the prefix holds only webhook signing secrets and the action is read-only.",
    );
  }

  /** An emission point: may put events on the queue, nothing else. */
  grantEmit(grantee: IGrantable): void {
    this.queue.grantSend(grantee);
  }
}
