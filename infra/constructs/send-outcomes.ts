import { Duration } from "aws-cdk-lib";
import { EventBus, Rule } from "aws-cdk-lib/aws-events";
import { SqsQueue } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { type ConfigurationSet, EmailSendingEvent, EventDestination } from "aws-cdk-lib/aws-ses";
import { Construct } from "constructs";
import { deliveryEventsPk } from "../../shared/ports/index.ts";
import { ACTIONS } from "../iam/actions.ts";
import { PipelineFunction, type PipelineFunctionProps } from "./pipeline-function.ts";
import type { StateTables } from "./state-tables.ts";
import { WorkQueue } from "./work-queue.ts";

export interface DeliveryEventsProps {
  readonly configurationSet: ConfigurationSet;
  readonly tables: StateTables;
  /** The function's code, config and environment, as the pipeline's (PipelineFunctionProps). */
  readonly function: Omit<PipelineFunctionProps, "source" | "timeout">;
  /** @default 5 */
  readonly maxReceiveCount?: number;
}

/**
 * The SES events Postern records (SES Developer Guide, "Monitoring email sending using Amazon SES event
 * publishing"): bounces, complaints, rejects and delivery delays of every send through the configuration set.
 * SES publishes them to the account's default EventBridge bus (the "Email Bounced", ... detail types of source
 * `aws.ses`); a rule for this configuration set's events puts them on a work queue whose function records each in
 * the state table under its agent (`delivery#<agent>`), where the console's agent page reads them.
 */
export class DeliveryEvents extends Construct {
  readonly queue: WorkQueue;
  readonly fn: PipelineFunction;
  readonly rule: Rule;

  /** The SES event types recorded, and the EventBridge detail type each arrives as. */
  static readonly EVENTS = [
    [EmailSendingEvent.BOUNCE, "Email Bounced"],
    [EmailSendingEvent.COMPLAINT, "Email Complaint Received"],
    [EmailSendingEvent.REJECT, "Email Rejected"],
    [EmailSendingEvent.DELIVERY_DELAY, "Email Delivery Delayed"],
  ] as const;

  constructor(scope: Construct, id: string, props: DeliveryEventsProps) {
    super(scope, id);
    const timeout = Duration.seconds(30);
    this.queue = new WorkQueue(this, "Queue", {
      consumerTimeout: timeout,
      ...(props.maxReceiveCount !== undefined ? { maxReceiveCount: props.maxReceiveCount } : {}),
    });
    this.fn = new PipelineFunction(this, "Record", { ...props.function, source: this.queue, timeout });
    const bus = EventBus.fromEventBusName(this, "DefaultBus", "default");
    props.configurationSet.addEventDestination("ToEventBridge", {
      destination: EventDestination.eventBus(bus),
      events: DeliveryEvents.EVENTS.map(([e]) => e),
    });
    this.rule = new Rule(this, "Rule", {
      eventBus: bus,
      description: "Postern: SES bounces, complaints, rejects and delivery delays of its configuration set",
      eventPattern: {
        source: ["aws.ses"],
        detailType: DeliveryEvents.EVENTS.map(([, t]) => t),
        // Only this stack's sends: SES tags every event with the configuration set it went through.
        detail: {
          mail: { tags: { "ses:configuration-set": [props.configurationSet.configurationSetName] } },
        },
      },
    });
    // The target writes the queue policy EventBridge needs, for this rule only (aws:SourceArn).
    this.rule.addTarget(new SqsQueue(this.queue.queue));
    // One item per event under its agent's partition, written once (a conditional put; a duplicate reads it back),
    // and nothing else of the state table: the partition key must be a delivery one (dynamodb:LeadingKeys).
    this.fn.role.addToPolicy(
      new PolicyStatement({
        actions: [...ACTIONS.tablePut, ...ACTIONS.tableGet],
        resources: [props.tables.tables.state.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [deliveryEventsPk("*")] } },
      }),
    );
  }
}
