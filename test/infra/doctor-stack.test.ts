import { DescribeTableCommand, ResourceNotFoundException } from "@aws-sdk/client-dynamodb";
import {
  type EvaluationResult,
  NoSuchEntityException,
  type PolicyEvaluationDecisionType,
  SimulatePrincipalPolicyCommand,
} from "@aws-sdk/client-iam";
import { ListSubscriptionsByTopicCommand, NotFoundException } from "@aws-sdk/client-sns";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { checkAlarmTopic } from "../../cli/doctor/alarm-topic.ts";
import { checkOutboundPermission } from "../../cli/doctor/outbound-permission.ts";
import { checkQueues } from "../../cli/doctor/queues.ts";
import { checkTables } from "../../cli/doctor/tables.ts";
import { TABLE_KEYS } from "../../shared/config/tables.ts";
import {
  ALARM_TOPIC,
  beforeDeploy,
  deployed,
  fakePorts,
  fixOf,
  META,
  OUTBOUND_ROLE,
  only,
  resources,
  when,
} from "./doctor-fakes.ts";

describe("doctor: tables and dead-letter queues", () => {
  it("every table ACTIVE and every DLQ empty: ok, each asked once", async () => {
    const p = fakePorts();
    const tables = await checkTables(deployed(), p);
    expect(tables.map((c) => c.status)).toEqual(TABLE_KEYS.map(() => "ok"));
    const queues = await checkQueues(deployed(), p);
    expect(queues).toEqual(
      ["verify", "agentStep", "outbound"].map((k) => ({ check: `dlq ${k}`, status: "ok", detail: "empty" })),
    );
    expect(p.calls.sqs.filter((c) => c.command === "GetQueueUrlCommand")).toHaveLength(3);
  });

  it("a missing table fails (wrong region or file); one still CREATING warns", async () => {
    const p = fakePorts({
      dynamo: [
        when(DescribeTableCommand).reply((input) => {
          if (input.TableName === "Postern-runs")
            throw new ResourceNotFoundException({ message: "Requested resource not found", $metadata: {} });
          return {
            ...META,
            Table: {
              TableName: input.TableName,
              TableStatus: input.TableName === "Postern-state" ? "CREATING" : "ACTIVE",
            },
          };
        }),
      ],
    });
    const checks = await checkTables(deployed(), p);
    expect(only(checks, "table runs")).toMatchObject({
      status: "fail",
      detail: "no table Postern-runs in eu-west-1",
    });
    expect(fixOf(only(checks, "table runs"))).toMatch(/check AWS_REGION/);
    expect(only(checks, "table state")).toMatchObject({ status: "warn", detail: "Postern-state CREATING" });
  });

  it("a DLQ with messages fails with the redrive fix; a queue without a DLQ fails", async () => {
    const depth = when(GetQueueAttributesCommand).reply((input) =>
      input.QueueUrl === "https://q/verify"
        ? {
            ...META,
            Attributes: {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: "arn:aws:sqs:eu-west-1:111111111111:verify-dlq",
              }),
            },
          }
        : input.QueueUrl === "https://q/outbound"
          ? { ...META, Attributes: {} }
          : {
              ...META,
              Attributes: {
                ApproximateNumberOfMessages: "3",
                RedrivePolicy: JSON.stringify({
                  deadLetterTargetArn: "arn:aws:sqs:eu-west-1:111111111111:agentStep-dlq",
                }),
              },
            },
    );
    const checks = await checkQueues(deployed(), fakePorts({ sqs: [depth] }));
    expect(only(checks, "dlq agentStep")).toMatchObject({
      status: "fail",
      detail: "3 message(s) in agentStep-dlq",
    });
    expect(fixOf(only(checks, "dlq agentStep"))).toMatch(/Start DLQ redrive/);
    expect(only(checks, "dlq outbound")).toMatchObject({
      status: "fail",
      detail: "the queue has no dead-letter queue",
    });
  });

  it("before the deploy: skipped, saying how to run them", async () => {
    const [t] = await checkTables(beforeDeploy(), fakePorts());
    expect(t).toMatchObject({ status: "skipped", detail: "needs the deployed stack" });
    expect(fixOf(t)).toMatch(/postern doctor --resources FILE/);
  });
});

const subscriptions = (...arns: string[]) =>
  when(ListSubscriptionsByTopicCommand).reply(() => ({
    ...META,
    Subscriptions: arns.map((SubscriptionArn, i) => ({
      SubscriptionArn,
      Owner: "111111111111",
      Protocol: "email",
      Endpoint: `ops${i}@example.com`,
      TopicArn: ALARM_TOPIC,
    })),
  }));

describe("doctor: a confirmed subscription on the alarm topic", () => {
  it("a confirmed subscription (an ARN): ok, naming it", async () => {
    expect(await checkAlarmTopic(deployed(), fakePorts())).toEqual([
      { check: "alarm subscription", status: "ok", detail: "confirmed: email:ops@example.com" },
    ]);
  });

  it("only PendingConfirmation: warns, fix says to follow the link in the mail", async () => {
    const [c] = await checkAlarmTopic(deployed(), fakePorts({ sns: [subscriptions("PendingConfirmation")] }));
    expect(c).toMatchObject({ status: "warn", detail: "not confirmed yet: email:ops0@example.com" });
    expect(fixOf(c)).toMatch(
      /"AWS Notification - Subscription Confirmation" and follow its Confirm subscription link/,
    );
  });

  it("nobody subscribed: warns, fix is the subscribe command for this topic", async () => {
    const [c] = await checkAlarmTopic(deployed(), fakePorts({ sns: [subscriptions()] }));
    expect(fixOf(c)).toBe(
      `\`aws sns subscribe --topic-arn ${ALARM_TOPIC} --protocol email --notification-endpoint you@example.com\`, then confirm the mail`,
    );
  });

  it("follows NextToken to a confirmed subscription on the second page", async () => {
    const paged = when(ListSubscriptionsByTopicCommand).reply((input) =>
      input.NextToken
        ? {
            ...META,
            Subscriptions: [
              { SubscriptionArn: `${ALARM_TOPIC}:1`, Protocol: "email", Endpoint: "b@example.com" },
            ],
          }
        : {
            ...META,
            Subscriptions: [
              { SubscriptionArn: "PendingConfirmation", Protocol: "email", Endpoint: "a@example.com" },
            ],
            NextToken: "p2",
          },
    );
    const p = fakePorts({ sns: [paged] });
    expect((await checkAlarmTopic(deployed(), p))[0]?.status).toBe("ok");
    expect(p.calls.sns.map((c) => c.input)).toEqual([
      { TopicArn: ALARM_TOPIC },
      { TopicArn: ALARM_TOPIC, NextToken: "p2" },
    ]);
  });

  it("topic gone (NotFoundException) fails; a resources file without the ARN is skipped", async () => {
    const gone = when(ListSubscriptionsByTopicCommand).throws(
      new NotFoundException({ message: "Topic does not exist", $metadata: {} }),
    );
    expect((await checkAlarmTopic(deployed(), fakePorts({ sns: [gone] })))[0]).toMatchObject({
      status: "fail",
    });
    const { alarmTopicArn: _, ...older } = resources;
    expect((await checkAlarmTopic(deployed({ resources: older }), fakePorts()))[0]).toMatchObject({
      status: "skipped",
    });
  });
});

const decide = (decisions: Record<string, PolicyEvaluationDecisionType>) =>
  when(SimulatePrincipalPolicyCommand).reply((input) => ({
    ...META,
    IsTruncated: false,
    EvaluationResults: (input.ActionNames ?? []).map(
      (action): EvaluationResult => ({
        EvalActionName: action,
        EvalDecision: decisions[action] ?? "allowed",
        ResourceSpecificResults: (input.ResourceArns ?? []).map((arn) => ({
          EvalResourceName: arn,
          EvalResourceDecision: decisions[action] ?? "allowed",
        })),
      }),
    ),
  }));

describe("doctor: the outbound role may send (IAM policy simulation)", () => {
  it("asks for both send actions on the identity and the configuration set, with ses:FromAddress at the domain", async () => {
    const p = fakePorts();
    expect(await checkOutboundPermission(deployed(), p)).toEqual([
      {
        check: "outbound send agents.example.com",
        status: "ok",
        detail: "ses:SendRawEmail, ses:SendEmail allowed on 2 resource(s)",
      },
    ]);
    expect(p.calls.iam).toEqual([
      {
        command: "SimulatePrincipalPolicyCommand",
        input: {
          PolicySourceArn: OUTBOUND_ROLE,
          ActionNames: ["ses:SendRawEmail", "ses:SendEmail"],
          ResourceArns: [
            "arn:aws:ses:eu-west-1:111111111111:identity/agents.example.com",
            "arn:aws:ses:eu-west-1:111111111111:configuration-set/postern",
          ],
          ContextEntries: [
            {
              ContextKeyName: "ses:FromAddress",
              ContextKeyValues: ["postern-doctor@agents.example.com"],
              ContextKeyType: "string",
            },
          ],
        },
      },
    ]);
  });

  it("SendRawEmail implicitly denied (a stack from before the grant): fails, fix is to deploy the current stack", async () => {
    const [c] = await checkOutboundPermission(
      deployed(),
      fakePorts({ iam: [decide({ "ses:SendRawEmail": "implicitDeny" })] }),
    );
    expect(c?.detail).toBe(
      "the outbound role may not send as agents.example.com: " +
        "ses:SendRawEmail on arn:aws:ses:eu-west-1:111111111111:identity/agents.example.com: implicitDeny; " +
        "ses:SendRawEmail on arn:aws:ses:eu-west-1:111111111111:configuration-set/postern: implicitDeny",
    );
    expect(fixOf(c)).toMatch(/^deploy the current stack \(it grants ses:SendRawEmail and ses:SendEmail/);
  });

  it("an explicit deny (an SCP): fails, fix points at the deny", async () => {
    const [c] = await checkOutboundPermission(
      deployed(),
      fakePorts({ iam: [decide({ "ses:SendEmail": "explicitDeny" })] }),
    );
    expect(c?.status).toBe("fail");
    expect(fixOf(c)).toMatch(/^an explicit Deny \(SCP, permissions boundary or policy\) blocks it/);
  });

  it("only a top-level decision (no per-resource results) is read too", async () => {
    const topLevel = when(SimulatePrincipalPolicyCommand).reply(() => ({
      ...META,
      EvaluationResults: [
        { EvalActionName: "ses:SendRawEmail", EvalDecision: "allowed" },
        { EvalActionName: "ses:SendEmail", EvalDecision: "implicitDeny" },
      ],
    }));
    const [c] = await checkOutboundPermission(deployed(), fakePorts({ iam: [topLevel] }));
    expect(c?.detail).toMatch(/ses:SendEmail: implicitDeny$/);
  });

  it("role gone (NoSuchEntityException) fails; an older resources file without roles is skipped", async () => {
    const gone = when(SimulatePrincipalPolicyCommand).throws(
      new NoSuchEntityException({
        message: "The role with name Postern-OutboundRole cannot be found.",
        $metadata: {},
      }),
    );
    expect((await checkOutboundPermission(deployed(), fakePorts({ iam: [gone] })))[0]).toMatchObject({
      status: "fail",
      detail: `no role ${OUTBOUND_ROLE}`,
    });
    const { roles: _, ...older } = resources;
    expect((await checkOutboundPermission(deployed({ resources: older }), fakePorts()))[0]).toMatchObject({
      status: "skipped",
    });
  });
});
