import { Duration, Stack } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import {
  ContextAttribute,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
} from "aws-cdk-lib/aws-scheduler";
import { SqsSendMessage } from "aws-cdk-lib/aws-scheduler-targets";
import { Construct } from "constructs";
import type { WorkQueue } from "./work-queue.ts";

export interface ResponsibilityTicksProps {
  /** The agent-step queue: a tick makes agent-step evaluate which responsibilities are due. */
  readonly agentStepQueue: WorkQueue;
  /** @default rate(1 minute) */
  readonly rate?: Duration;
}

/**
 * Scheduled runs: one EventBridge Scheduler schedule sends `{"tick": "<scheduled time>"}` to the agent-step queue;
 * agent-step reads the responsibilities from the admin table and starts the due ones. One schedule for all of
 * them, so editing a responsibility is an admin-table write, never a deploy.
 */
export class ResponsibilityTicks extends Construct {
  readonly schedule: Schedule;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ResponsibilityTicksProps) {
    super(scope, id);
    this.role = new Role(this, "Role", {
      // Confused-deputy guard: only schedules in this account may assume it.
      assumedBy: new ServicePrincipal("scheduler.amazonaws.com").withConditions({
        StringEquals: { "aws:SourceAccount": Stack.of(this).account },
      }),
    });
    props.agentStepQueue.grantSend(this.role);
    this.schedule = new Schedule(this, "Tick", {
      schedule: ScheduleExpression.rate(props.rate ?? Duration.minutes(1)),
      description: "Postern: tick for scheduled responsibilities",
      target: new SqsSendMessage(props.agentStepQueue.queue, {
        role: this.role,
        input: ScheduleTargetInput.fromObject({ tick: ContextAttribute.scheduledTime }),
        // A tick missed by more than a minute is superseded by the next one.
        maxEventAge: Duration.minutes(1),
        retryAttempts: 2,
      }),
    });
  }
}
