import { Duration } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { PosternError } from "../../shared/errors.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";

export interface WorkQueueProps {
  /** Timeout of the function consuming the queue; the visibility timeout is 6 × this (AWS's guidance for SQS triggers). */
  readonly consumerTimeout: Duration;
  /** Receives before a message moves to the DLQ. @default 5 */
  readonly maxReceiveCount?: number;
  /** How long the DLQ keeps a failed message for an operator. @default 14 days (the SQS maximum) */
  readonly dlqRetention?: Duration;
  /**
   * Age of the oldest message that means the consumer is stalled. @default visibility timeout + consumer timeout
   * (one retry cycle); a queue whose consumer delays its own retries (the events queue's backoff) sets its own.
   */
  readonly stallAfter?: Duration;
}

/** One hand-off of the pipeline: an SSE, TLS-only queue whose failures land in a DLQ that an alarm watches. */
export class WorkQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /**
   * How old the oldest message may grow while its consumer still works: one failed or timed-out delivery waits out
   * the visibility timeout before SQS hands it out again, and the redelivery may run a whole consumer timeout. A
   * message older than that was not taken even on its retry (trigger disabled, throttled, a backlog): the
   * pipeline is stalled, which the DLQ would show only after every receive is spent.
   */
  readonly stallAfter: Duration;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    const maxReceiveCount = props.maxReceiveCount ?? 5;
    if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1000)
      throw new PosternError(
        "misconfigured",
        `${id}: maxReceiveCount must be an integer 1-1000, got ${maxReceiveCount}`,
      );
    this.deadLetterQueue = new Queue(this, "Dlq", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: props.dlqRetention ?? Duration.days(14),
    });
    acknowledgeNag(
      this.deadLetterQueue,
      "AwsSolutions-SQS3",
      "This queue is itself the dead-letter queue of the work queue beside it; it has an alarm on depth.",
    );
    const visibility = Duration.seconds(props.consumerTimeout.toSeconds() * 6);
    this.stallAfter =
      props.stallAfter ?? Duration.seconds(visibility.toSeconds() + props.consumerTimeout.toSeconds());
    this.queue = new Queue(this, "Queue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: visibility,
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
    });
  }

  grantSend(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...ACTIONS.queueSend], resources: [this.queue.queueArn] }),
    );
  }
}
