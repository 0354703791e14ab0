import { GetQueueAttributesCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import { callFailed } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok } from "./report.ts";

/** Every work queue has a dead-letter queue, and it is empty (a message there is a step that failed 5 times). */
export async function checkQueues(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  if (!ctx.resources) return [notDeployed("dead-letter queues")];
  const out: DoctorCheck[] = [];
  for (const [key, url] of Object.entries(ctx.resources.queues)) {
    const check = `dlq ${key}`;
    try {
      const attrs = await ports.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["RedrivePolicy"] }),
      );
      const arn = (JSON.parse(attrs.Attributes?.RedrivePolicy ?? "{}") as { deadLetterTargetArn?: string })
        .deadLetterTargetArn;
      if (!arn) {
        out.push(
          fail(
            check,
            "the queue has no dead-letter queue",
            "deploy the current stack (it sets one on every queue)",
          ),
        );
        continue;
      }
      const [, , , , owner, dlqName] = arn.split(":");
      const { QueueUrl } = await ports.sqs.send(
        new GetQueueUrlCommand({ QueueName: dlqName, QueueOwnerAWSAccountId: owner }),
      );
      const depth = await ports.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }),
      );
      const n = Number(depth.Attributes?.ApproximateNumberOfMessages ?? "0");
      if (n === 0) out.push(ok(check, "empty"));
      else
        out.push(
          fail(
            check,
            `${n} message(s) in ${dlqName}`,
            "read the step's logs for the failure, fix the cause, then redrive (SQS console → the DLQ → Start DLQ redrive)",
          ),
        );
    } catch (err) {
      out.push(callFailed(check, "sqs:GetQueueAttributes", err));
    }
  }
  return out;
}
