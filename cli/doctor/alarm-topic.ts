import { ListSubscriptionsByTopicCommand, type Subscription } from "@aws-sdk/client-sns";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok, skipped, warn } from "./report.ts";

const CHECK = "alarm subscription";

/**
 * Someone hears the alarms: the alarm topic has at least one confirmed subscription. SNS lists an unconfirmed one
 * with the SubscriptionArn "PendingConfirmation"; a confirmed one has its ARN.
 */
export async function checkAlarmTopic(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  if (!ctx.resources) return [notDeployed(CHECK)];
  const topic = ctx.resources.alarmTopicArn;
  if (!topic)
    return [
      skipped(
        CHECK,
        "the resources file has no alarmTopicArn",
        "save the PosternResources output of the current stack again (older stacks did not include it)",
      ),
    ];
  const subs: Subscription[] = [];
  try {
    let NextToken: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await ports.sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic, NextToken }));
      subs.push(...(r.Subscriptions ?? []));
      NextToken = r.NextToken;
      if (!NextToken) break;
    }
  } catch (err) {
    if (isError(err, "NotFoundException"))
      return [
        fail(
          CHECK,
          `no topic ${topic}`,
          "check AWS_REGION and that the resources file belongs to this stack",
        ),
      ];
    return [callFailed(CHECK, "sns:ListSubscriptionsByTopic", err)];
  }
  const who = (s: Subscription) => `${s.Protocol ?? "?"}:${s.Endpoint ?? "?"}`;
  const confirmed = subs.filter((s) => s.SubscriptionArn?.startsWith("arn:"));
  const pending = subs.filter((s) => s.SubscriptionArn === "PendingConfirmation");
  if (confirmed.length > 0) return [ok(CHECK, `confirmed: ${confirmed.map(who).join(", ")}`)];
  if (pending.length > 0)
    return [
      warn(
        CHECK,
        `not confirmed yet: ${pending.map(who).join(", ")}`,
        'open the mail "AWS Notification - Subscription Confirmation" and follow its Confirm subscription link ' +
          "(it expires after 3 days; subscribe again after that)",
      ),
    ];
  return [
    warn(
      CHECK,
      "nobody is subscribed: DLQ, error and SES reputation alarms reach no one",
      `\`aws sns subscribe --topic-arn ${topic} --protocol email --notification-endpoint you@example.com\`, then confirm the mail`,
    ),
  ];
}
