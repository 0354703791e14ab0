import { GetTopicAttributesCommand } from "@aws-sdk/client-sns";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok, skipped } from "./report.ts";

/**
 * Both topics are encrypted with the stack's KMS keys: the receipt notification topic (it carries each mail's
 * envelope and headers) and the alarm topic. `KmsMasterKeyId` is the topic's SSE key (SNS GetTopicAttributes); an
 * empty one means someone turned encryption off after the deploy.
 */
export async function checkTopicKeys(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  if (!ctx.resources) return [notDeployed("topic keys")];
  const topics: [string, string | undefined][] = [
    ["notification", ctx.resources.notificationTopicArn],
    ["alarm", ctx.resources.alarmTopicArn],
  ];
  const out: DoctorCheck[] = [];
  for (const [name, arn] of topics) {
    const check = `topic key ${name}`;
    if (!arn) {
      out.push(
        skipped(
          check,
          `the resources file does not name the ${name} topic`,
          "save the PosternResources output of the current stack again (older stacks did not include it)",
        ),
      );
      continue;
    }
    try {
      const r = await ports.sns.send(new GetTopicAttributesCommand({ TopicArn: arn }));
      const key = r.Attributes?.KmsMasterKeyId;
      out.push(
        key
          ? ok(check, `encrypted with ${key}`)
          : fail(
              check,
              `${arn} is not encrypted: ${name === "notification" ? "each mail's envelope and headers" : "alarm texts"} pass in the clear`,
              "deploy the stack again: it sets the topic's KMS key (someone removed it since)",
            ),
      );
    } catch (err) {
      out.push(
        isError(err, "NotFoundException")
          ? fail(
              check,
              `no topic ${arn}`,
              "check AWS_REGION and that the resources file belongs to this stack",
            )
          : callFailed(check, "sns:GetTopicAttributes", err),
      );
    }
  }
  return out;
}
