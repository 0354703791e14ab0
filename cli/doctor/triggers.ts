import { type EventSourceMappingConfiguration, ListEventSourceMappingsCommand } from "@aws-sdk/client-lambda";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok, skipped, warn } from "./report.ts";

/** Event source mapping states that end in Enabled by themselves (Lambda API reference, EventSourceMappingConfiguration). */
const ON_THE_WAY = new Set(["Creating", "Enabling", "Updating"]);

/**
 * Each work queue has a Lambda trigger (an SQS event source mapping) that is Enabled. A disabled mapping is silent:
 * the queue fills, nothing fails, and the only sign is the queue-age alarm. Looked up by the queue's ARN, so the
 * check needs no function names.
 */
export async function checkTriggers(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  if (!ctx.resources) return [notDeployed("queue triggers")];
  const out: DoctorCheck[] = [];
  for (const [key, url] of Object.entries(ctx.resources.queues)) {
    const check = `trigger ${key}`;
    let arn: string | undefined;
    try {
      const attrs = await ports.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }),
      );
      arn = attrs.Attributes?.QueueArn;
    } catch (err) {
      out.push(callFailed(check, "sqs:GetQueueAttributes", err));
      continue;
    }
    if (!arn) {
      out.push(
        warn(check, `SQS returned no QueueArn for ${url}`, "run `aws sqs get-queue-attributes` and compare"),
      );
      continue;
    }
    let mappings: EventSourceMappingConfiguration[];
    try {
      mappings = await mappingsOf(ports, arn);
    } catch (err) {
      out.push(callFailed(check, "lambda:ListEventSourceMappings", err));
      continue;
    }
    out.push(verdict(check, url, mappings));
  }
  out.push(await checkSchedule(ctx, ports));
  return out;
}

async function mappingsOf(ports: DoctorPorts, arn: string): Promise<EventSourceMappingConfiguration[]> {
  const all: EventSourceMappingConfiguration[] = [];
  let Marker: string | undefined;
  for (let page = 0; page < 10; page++) {
    const r = await ports.lambda.send(new ListEventSourceMappingsCommand({ EventSourceArn: arn, Marker }));
    all.push(...(r.EventSourceMappings ?? []));
    Marker = r.NextMarker;
    if (!Marker) break;
  }
  return all;
}

function verdict(
  check: string,
  url: string,
  mappings: readonly EventSourceMappingConfiguration[],
): DoctorCheck {
  const name = url.split("/").pop() ?? url;
  const fn = (m: EventSourceMappingConfiguration) => m.FunctionArn?.split(":").pop() ?? "?";
  const enabled = mappings.find((m) => m.State === "Enabled");
  if (enabled) return ok(check, `${name} → ${fn(enabled)} (Enabled)`);
  if (mappings.length === 0)
    return fail(
      check,
      `no Lambda function reads ${name}: messages wait there until they expire`,
      "deploy the stack again (it owns the trigger)",
    );
  const [first] = mappings;
  const state = first?.State ?? "unknown";
  if (ON_THE_WAY.has(state))
    return warn(
      check,
      `${name} → ${fn(first ?? {})} is ${state}`,
      "wait a minute, then run the doctor again",
    );
  const why = first?.StateTransitionReason ? ` (${first.StateTransitionReason})` : "";
  return fail(
    check,
    `${name} → ${fn(first ?? {})} is ${state}${why}: messages wait in the queue and nothing fails`,
    `\`aws lambda update-event-source-mapping --uuid ${first?.UUID ?? "<uuid>"} --enabled\``,
  );
}

/**
 * The EventBridge Scheduler tick that starts scheduled runs is ENABLED. A disabled schedule is silent too: no run,
 * no error. Needs @aws-sdk/client-scheduler (ports.scheduler); without it the check says how to look by hand.
 */
export async function checkSchedule(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck> {
  const check = "schedule tick";
  const s = ctx.resources?.schedule;
  if (!s)
    return skipped(
      check,
      "the resources file has no schedule",
      "save the PosternResources output of the current stack again (older stacks did not include it)",
    );
  const byHand = `\`aws scheduler get-schedule --name ${s.name} --group-name ${s.group} --query State\` must say ENABLED`;
  if (!ports.scheduler)
    return skipped(
      check,
      "this install has no EventBridge Scheduler client (@aws-sdk/client-scheduler)",
      byHand,
    );
  try {
    const r = await ports.scheduler.getSchedule({ Name: s.name, GroupName: s.group });
    if (r.State === "ENABLED") return ok(check, `${s.name} ENABLED (${r.ScheduleExpression ?? "?"})`);
    return fail(
      check,
      `${s.name} is ${r.State ?? "in no state"}: scheduled responsibilities never run`,
      `enable it: EventBridge console → Scheduler → Schedules → ${s.name} → Enable`,
    );
  } catch (err) {
    if (isError(err, "ResourceNotFoundException"))
      return fail(
        check,
        `no schedule ${s.name} in group ${s.group}`,
        "deploy the stack again (it owns the schedule)",
      );
    return callFailed(check, "scheduler:GetSchedule", err);
  }
}
