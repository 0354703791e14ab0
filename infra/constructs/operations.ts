import { Duration, Stack } from "aws-cdk-lib";
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { PolicyStatement, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { FilterPattern, type IFilterPattern, MetricFilter } from "aws-cdk-lib/aws-logs";
import { Topic } from "aws-cdk-lib/aws-sns";
import { Construct } from "constructs";
import {
  FAILURE_CLASSES,
  FAILURE_LOG,
  FAILURE_METRICS,
  type FailureClass,
  UNKNOWN_OUTCOME_LOG,
} from "../../shared/ports/index.ts";
import type { PipelineFunction } from "./pipeline-function.ts";
import type { WorkQueue } from "./work-queue.ts";

/** What a failure class's metric counts: the one line `logFailure` writes, with its class (G19). */
export function failureFilterPattern(cls: FailureClass): IFilterPattern {
  return FilterPattern.all(
    FilterPattern.stringValue("$.message", "=", FAILURE_LOG),
    FilterPattern.stringValue("$.failureClass", "=", cls),
  );
}

export interface OperationsProps {
  readonly steps: Readonly<Record<string, { fn: PipelineFunction; queue: WorkQueue }>>;
  /** SES account reputation thresholds (fractions). AWS reviews accounts at 5% bounces / 0.1% complaints. */
  readonly bounceRateThreshold?: number;
  readonly complaintRateThreshold?: number;
}

/**
 * Alarms (every DLQ non-empty, every work queue's oldest message past its stall age, function errors and throttles,
 * SES bounce and complaint rates) into one encrypted SNS topic the operator subscribes to, and a dashboard of the
 * pipeline.
 */
export class Operations extends Construct {
  readonly alarmTopic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const key = new Key(this, "AlarmTopicKey", {
      enableKeyRotation: true,
      description: "Postern: alarm notifications (SNS topic encryption)",
    });
    // Confused-deputy guard on both statements below: only this account's alarms may use the key and the topic.
    const { account, region, partition } = Stack.of(this);
    const cloudwatch = new ServicePrincipal("cloudwatch.amazonaws.com");
    const fromOurAlarms = {
      StringEquals: { "aws:SourceAccount": account },
      ArnLike: { "aws:SourceArn": `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
    };
    // CloudWatch publishes to the encrypted topic; it needs the key for that.
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudwatch],
        actions: ["kms:GenerateDataKey*", "kms:Decrypt"],
        resources: ["*"],
        conditions: fromOurAlarms,
      }),
    );
    this.alarmTopic = new Topic(this, "AlarmTopic", { masterKey: key, enforceSSL: true });
    // enforceSSL makes CDK write a topic policy holding only its Deny; a topic policy replaces SNS's default one,
    // so without this Allow CloudWatch may not publish and every alarm would fail silently.
    this.alarmTopic.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudwatch],
        actions: ["sns:Publish"],
        resources: [this.alarmTopic.topicArn],
        conditions: fromOurAlarms,
      }),
    );
    const action = new SnsAction(this.alarmTopic);
    const alarm = (name: string, metric: IMetric, threshold: number, description: string) => {
      const a = new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      a.addAlarmAction(action);
      this.alarms.push(a);
    };

    const widgets: GraphWidget[] = [];
    for (const [step, { fn, queue }] of Object.entries(props.steps)) {
      const period = Duration.minutes(5);
      const dlqDepth = queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: "Maximum",
      });
      alarm(
        `${step}DlqDepth`,
        dlqDepth,
        1,
        `Postern ${step}: messages in the dead-letter queue (inspect, then redrive)`,
      );
      // ApproximateAgeOfOldestMessage (SQS's CloudWatch metrics, AWS SQS Developer Guide): a stalled step is seen
      // within one retry cycle of its consumer (WorkQueue.stallAfter), not after the DLQ has taken every receive.
      // It stops counting a message after its third receive (a poison message drops out of it), so the DLQ-depth
      // alarm above is the one that sees a message every receive fails: the redrive moves it there after
      // maxReceiveCount receives ("Capturing problematic messages in Amazon SQS", same guide). A test holds every
      // age alarm to a DLQ-depth alarm on the same queue's DLQ.
      alarm(
        `${step}OldestMessageAge`,
        queue.queue.metricApproximateAgeOfOldestMessage({ period, statistic: "Maximum" }),
        queue.stallAfter.toSeconds(),
        `Postern ${step}: the oldest queued message is ${queue.stallAfter.toHumanString()} old or older (the step is stalled: check its trigger, throttles and errors)`,
      );
      alarm(`${step}Errors`, fn.fn.metricErrors({ period }), 1, `Postern ${step}: function errors`);
      alarm(`${step}Throttles`, fn.fn.metricThrottles({ period }), 1, `Postern ${step}: function throttled`);
      widgets.push(
        new GraphWidget({
          title: `${step}: queue`,
          left: [
            queue.queue.metricApproximateNumberOfMessagesVisible(),
            queue.queue.metricApproximateAgeOfOldestMessage(),
          ],
          right: [dlqDepth],
        }),
        new GraphWidget({
          title: `${step}: function`,
          left: [fn.fn.metricInvocations(), fn.fn.metricErrors(), fn.fn.metricThrottles()],
          right: [fn.fn.metricDuration({ statistic: "p95" })],
        }),
      );
    }
    // The metric filters' metrics carry no dimension: a second stack in the account and region (staging beside
    // production) writes its own namespace, or its failures would raise the other stack's alarms.
    const { stackName } = Stack.of(this);
    const namespace = stackName === "Postern" ? "Postern" : `Postern/${stackName}`;
    // The one window exactly-once cannot close (docs/outbound.md): the outbound function logs it; alarm on it.
    const outbound = props.steps.outbound;
    if (outbound) {
      const unknownSends = new MetricFilter(this, "UnknownSendOutcome", {
        logGroup: outbound.fn.logGroup,
        filterPattern: FilterPattern.stringValue("$.message", "=", UNKNOWN_OUTCOME_LOG),
        metricNamespace: namespace,
        metricName: "UnknownSendOutcome",
        metricValue: "1",
        defaultValue: 0,
      });
      alarm(
        "UnknownSendOutcomeAlarm",
        unknownSends.metric({ period: Duration.minutes(5), statistic: "Sum" }),
        1,
        "Postern outbound: a send's outcome is uncertain (crash after SES accepted); run `postern outbound unknown`",
      );
    }
    // G19: one metric per failure class, from the one log line every failure writes, each alarmed on at >= 1.
    for (const cls of FAILURE_CLASSES) {
      const { metric, source, alarm: description, alsoFrom = [] } = FAILURE_METRICS[cls];
      const step = props.steps[source];
      if (!step) continue;
      const filter = new MetricFilter(this, `${metric}Filter`, {
        logGroup: step.fn.logGroup,
        filterPattern: failureFilterPattern(cls),
        metricNamespace: namespace,
        metricName: metric,
        metricValue: "1",
        defaultValue: 0,
      });
      // The same metric from every other function that writes the class's line: one alarm counts them all.
      for (const other of alsoFrom) {
        const from = props.steps[other];
        if (!from) continue;
        new MetricFilter(this, `${metric}From${other}Filter`, {
          logGroup: from.fn.logGroup,
          filterPattern: failureFilterPattern(cls),
          metricNamespace: namespace,
          metricName: metric,
          metricValue: "1",
          defaultValue: 0,
        });
      }
      const sum = filter.metric({ period: Duration.minutes(5), statistic: "Sum" });
      alarm(`${metric}Alarm`, sum, 1, description);
      widgets.push(new GraphWidget({ title: `failures: ${cls}`, left: [sum] }));
    }
    const reputation = (name: string) =>
      new Metric({ namespace: "AWS/SES", metricName: name, statistic: "Maximum", period: Duration.hours(1) });
    alarm(
      "SesBounceRate",
      reputation("Reputation.BounceRate"),
      props.bounceRateThreshold ?? 0.05,
      "SES bounce rate at or over 5%",
    );
    alarm(
      "SesComplaintRate",
      reputation("Reputation.ComplaintRate"),
      props.complaintRateThreshold ?? 0.001,
      "SES complaint rate at or over 0.1%",
    );
    widgets.push(
      new GraphWidget({
        title: "SES reputation",
        left: [reputation("Reputation.BounceRate"), reputation("Reputation.ComplaintRate")],
      }),
    );
    this.dashboard = new Dashboard(this, "Dashboard", { widgets: [widgets] });
  }
}
