// The calls AWS services make on our behalf, evaluated with AWS's policy logic (iam-simulate) against our
// resource policies as the synthesized template deploys them, with the condition keys those services send. Each
// must be allowed for our account and our rule set, and denied for another account (the confused deputy).

import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiptRuleName } from "../../infra/constructs/mail-intake.ts";
import { DeployedTemplate } from "../helpers/aws-contract/deployed-template.ts";
import { simulate, type Verdict } from "../helpers/aws-contract/simulate.ts";
import { ENV, FIXTURES, logicalId, type Synthesized, synth } from "./synth.ts";

const OTHER = "999999999999";
let s: Synthesized;
let t: DeployedTemplate;

beforeAll(() => {
  s = synth(join(FIXTURES, "iam.config.json"));
  t = new DeployedTemplate(s.stack.resolve(s.template.toJSON()) as Record<string, unknown>, {
    partition: "aws",
    account: ENV.account,
    region: ENV.region,
    stackName: "Postern",
  });
}, 300_000);
afterAll(() => rmSync(s?.outdir ?? "/nonexistent", { recursive: true, force: true }));

const id = (c: { node: { defaultChild?: unknown } }) => logicalId(s.stack, c);
const ruleArn = (set: string, rule: string, account: string = ENV.account) =>
  `arn:aws:ses:${ENV.region}:${account}:receipt-rule-set/${set}:receipt-rule/${rule}`;
const ourRule = (account: string = ENV.account) =>
  ruleArn("default-rule-set", receiptRuleName("agents.example.com"), account);

/** A service principal's call on one of our resources, judged by that resource's policy alone. */
function asService(
  service: string,
  action: string,
  resourceLogicalId: string,
  resource: string,
  context: Record<string, string>,
): Promise<Verdict> {
  return simulate(
    { arn: service, identityPolicies: [] },
    { action, resource, context },
    { resourceAccount: ENV.account, resourcePolicy: t.resourcePolicy(resourceLogicalId) },
  );
}
const from = (account: string, sourceArn: string) => ({
  "aws:SourceAccount": account,
  "aws:SourceArn": sourceArn,
});

describe("SES receiving", () => {
  const bucket = () => id(s.stack.store.bucket);
  const object = () => `${t.getAtt(bucket(), "Arn")}/inbound/0m1abc`;

  it("writes raw mail under inbound/ for our receipt rules only", async () => {
    expect(
      await asService("ses.amazonaws.com", "s3:PutObject", bucket(), object(), from(ENV.account, ourRule())),
    ).toBe("Allowed");
    // another account's rule, and another rule set of ours, are both refused
    expect(
      await asService("ses.amazonaws.com", "s3:PutObject", bucket(), object(), from(OTHER, ourRule(OTHER))),
    ).toMatch(/Denied$/);
    expect(
      await asService(
        "ses.amazonaws.com",
        "s3:PutObject",
        bucket(),
        object(),
        from(ENV.account, ruleArn("someone-elses-set", "catch-all")),
      ),
    ).toMatch(/Denied$/);
    // and nowhere but inbound/
    const elsewhere = `${t.getAtt(bucket(), "Arn")}/transcripts/x.json`;
    expect(
      await asService("ses.amazonaws.com", "s3:PutObject", bucket(), elsewhere, from(ENV.account, ourRule())),
    ).toMatch(/Denied$/);
  });

  it("publishes the receipt notification to the intake topic, and may use its key", async () => {
    const topic = id(s.stack.intake.topic);
    const key = id(s.stack.intake.topicKey);
    const topicArn = t.ref(topic);
    const keyArn = t.getAtt(key, "Arn");
    expect(
      await asService("ses.amazonaws.com", "sns:Publish", topic, topicArn, from(ENV.account, ourRule())),
    ).toBe("Allowed");
    expect(
      await asService("ses.amazonaws.com", "sns:Publish", topic, topicArn, from(OTHER, ourRule(OTHER))),
    ).toMatch(/Denied$/);
    for (const action of ["kms:GenerateDataKey", "kms:Decrypt"]) {
      expect(await asService("ses.amazonaws.com", action, key, keyArn, from(ENV.account, ourRule()))).toBe(
        "Allowed",
      );
      expect(await asService("ses.amazonaws.com", action, key, keyArn, from(OTHER, ourRule(OTHER)))).toMatch(
        /Denied$/,
      );
    }
  });

  it("SNS delivers the intake topic's notifications to the verify queue, and no other topic's", async () => {
    const queue = id(s.stack.queues.verify.queue);
    const queueArn = t.getAtt(queue, "Arn");
    const topicArn = t.ref(id(s.stack.intake.topic));
    expect(
      await asService("sns.amazonaws.com", "sqs:SendMessage", queue, queueArn, { "aws:SourceArn": topicArn }),
    ).toBe("Allowed");
    expect(
      await asService("sns.amazonaws.com", "sqs:SendMessage", queue, queueArn, {
        "aws:SourceArn": `arn:aws:sns:${ENV.region}:${OTHER}:attacker-topic`,
      }),
    ).toMatch(/Denied$/);
  });
});

describe("alarms", () => {
  const alarm = (account: string = ENV.account) =>
    `arn:aws:cloudwatch:${ENV.region}:${account}:alarm:Postern-verifyDlqDepth`;

  it("CloudWatch may publish our alarms to the alarm topic (enforceSSL's Deny-only policy must not shut it out)", async () => {
    const topic = id(s.stack.node.findChild("Operations").node.findChild("AlarmTopic") as never);
    const topicArn = t.ref(topic);
    expect(
      await asService("cloudwatch.amazonaws.com", "sns:Publish", topic, topicArn, from(ENV.account, alarm())),
    ).toBe("Allowed");
    expect(
      await asService("cloudwatch.amazonaws.com", "sns:Publish", topic, topicArn, from(OTHER, alarm(OTHER))),
    ).toMatch(/Denied$/);
  });

  it("CloudWatch may use the alarm topic's key for our alarms only", async () => {
    const key = id(s.stack.node.findChild("Operations").node.findChild("AlarmTopicKey") as never);
    const keyArn = t.getAtt(key, "Arn");
    for (const action of ["kms:GenerateDataKey", "kms:Decrypt"]) {
      expect(
        await asService("cloudwatch.amazonaws.com", action, key, keyArn, from(ENV.account, alarm())),
      ).toBe("Allowed");
      expect(
        await asService("cloudwatch.amazonaws.com", action, key, keyArn, from(OTHER, alarm(OTHER))),
      ).toMatch(/Denied$/);
    }
  });
});

describe("roles services assume", () => {
  const assume = (role: string, service: string, account: string) =>
    simulate(
      { arn: service, identityPolicies: [] },
      {
        action: "sts:AssumeRole",
        resource: t.getAtt(role, "Arn"),
        context: { "aws:SourceAccount": account },
      },
      { resourceAccount: ENV.account, resourcePolicy: t.trustPolicy(role) },
    );

  it("EventBridge Scheduler assumes the tick role for this account's schedules only, and the role may send the tick", async () => {
    const ticks = s.stack.node.findChild("Responsibilities") as never as {
      role: { node: { defaultChild?: unknown } };
    };
    const role = id(ticks.role);
    expect(await assume(role, "scheduler.amazonaws.com", ENV.account)).toBe("Allowed");
    expect(await assume(role, "scheduler.amazonaws.com", OTHER)).toMatch(/Denied$/);
    const queueArn = t.getAtt(id(s.stack.queues.agentStep.queue), "Arn");
    expect(
      await simulate(
        { arn: t.getAtt(role, "Arn"), identityPolicies: t.identityPolicies(role) },
        { action: "sqs:SendMessage", resource: queueArn, context: {} },
        {
          resourceAccount: ENV.account,
          resourcePolicy: t.resourcePolicy(id(s.stack.queues.agentStep.queue)),
        },
      ),
    ).toBe("Allowed");
  });

  it("Lambda assumes each function's role", async () => {
    for (const fn of Object.values(s.stack.functions))
      expect(await assume(id(fn.role), "lambda.amazonaws.com", ENV.account)).toBe("Allowed");
  });
});
