import { createHash } from "node:crypto";
import { Aws, Stack } from "aws-cdk-lib";
import { PolicyStatement, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { type IReceiptRuleSet, ReceiptRule, ReceiptRuleSet, TlsPolicy } from "aws-cdk-lib/aws-ses";
import { S3 } from "aws-cdk-lib/aws-ses-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import { SqsSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from "aws-cdk-lib/custom-resources";
import { Construct } from "constructs";
import { PREFIXES } from "../../shared/store/tables.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";
import type { MailStore } from "./mail-store.ts";
import type { WorkQueue } from "./work-queue.ts";

export interface MailIntakeProps {
  readonly domains: readonly string[];
  readonly store: MailStore;
  /** The verify queue: SNS delivers SES's receipt notification to it raw (the envelope is in it). */
  readonly verifyQueue: WorkQueue;
  /**
   * `existing`: add Postern's rules to the named rule set, which must exist and be active (the safe default).
   * `create`: create the set and ACTIVATE it, which replaces the account's active rule set in this region.
   */
  readonly ruleSet: { readonly mode: "existing" | "create"; readonly name: string };
}

/** SES rule names: <= 64 characters of letters, digits, `.`, `_`, `-`. Long domains get a stable hash. */
export function receiptRuleName(domain: string): string {
  const name = `postern-${domain}`;
  return name.length <= 64
    ? name
    : `postern-${createHash("sha256").update(domain).digest("hex").slice(0, 24)}`;
}

/**
 * SES receiving: one receipt rule per registered domain (recipient = the domain), spam and virus scanning on,
 * one S3 action writing the raw mail to `inbound/` and publishing the receipt notification (recipients, verdicts,
 * object key) to an encrypted SNS topic that feeds the verify queue.
 */
export class MailIntake extends Construct {
  readonly topic: Topic;
  readonly topicKey: Key;
  readonly ruleSet: IReceiptRuleSet;
  readonly rules: ReceiptRule[];

  constructor(scope: Construct, id: string, props: MailIntakeProps) {
    super(scope, id);
    const ses = new ServicePrincipal("ses.amazonaws.com");
    const fromThisAccount = { StringEquals: { "aws:SourceAccount": Stack.of(this).account } };
    const ruleArns = `arn:${Aws.PARTITION}:ses:${Stack.of(this).region}:${Stack.of(this).account}:receipt-rule-set/${props.ruleSet.name}:receipt-rule/*`;

    // The notification carries sender, recipients and Subject: encrypted at rest with a key SES may use.
    this.topicKey = new Key(this, "TopicKey", {
      enableKeyRotation: true,
      description: "Postern: SES receipt notifications (SNS topic encryption)",
    });
    this.topicKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [ses],
        actions: ["kms:GenerateDataKey*", "kms:Decrypt"],
        resources: ["*"],
        conditions: fromThisAccount,
      }),
    );
    this.topic = new Topic(this, "Notifications", { masterKey: this.topicKey, enforceSSL: true });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [ses],
        actions: ["sns:Publish"],
        resources: [this.topic.topicArn],
        // Confused-deputy guard: only this account's receipt rules in Postern's rule set may publish.
        conditions: { ...fromThisAccount, ArnLike: { "aws:SourceArn": ruleArns } },
      }),
    );
    this.topic.addSubscription(new SqsSubscription(props.verifyQueue.queue, { rawMessageDelivery: true }));

    this.ruleSet =
      props.ruleSet.mode === "create"
        ? new ReceiptRuleSet(this, "RuleSet", { receiptRuleSetName: props.ruleSet.name })
        : ReceiptRuleSet.fromReceiptRuleSetName(this, "RuleSet", props.ruleSet.name);

    this.rules = props.domains.map(
      (domain) =>
        new ReceiptRule(this, `Rule-${domain}`, {
          ruleSet: this.ruleSet,
          receiptRuleName: receiptRuleName(domain),
          recipients: [domain],
          enabled: true,
          scanEnabled: true,
          // Optional: refusing plaintext SMTP would lose mail from senders without STARTTLS.
          tlsPolicy: TlsPolicy.OPTIONAL,
          actions: [
            // The S3 action adds the bucket policy (ses.amazonaws.com PutObject on inbound/*, aws:SourceAccount).
            new S3({ bucket: props.store.bucket, objectKeyPrefix: PREFIXES.inbound, topic: this.topic }),
          ],
        }),
    );
    for (const rule of this.rules) rule.node.addDependency(this.topic);

    if (props.ruleSet.mode === "create") this.activate(props.ruleSet.name);
  }

  /** Make Postern's rule set the active one; on delete, deactivate (SES then has no active set). */
  private activate(name: string): void {
    const activation = new AwsCustomResource(this, "ActivateRuleSet", {
      onCreate: {
        service: "SES",
        action: "setActiveReceiptRuleSet",
        parameters: { RuleSetName: name },
        physicalResourceId: PhysicalResourceId.of(`postern-active-${name}`),
      },
      onUpdate: {
        service: "SES",
        action: "setActiveReceiptRuleSet",
        parameters: { RuleSetName: name },
        physicalResourceId: PhysicalResourceId.of(`postern-active-${name}`),
      },
      onDelete: { service: "SES", action: "setActiveReceiptRuleSet", parameters: {} },
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: [...ACTIONS.ruleSetActivate], resources: ["*"] }),
      ]),
      installLatestAwsSdk: false,
    });
    for (const rule of this.rules) activation.node.addDependency(rule);
    // The provider is a stack-level singleton that AwsCustomResource creates beside us.
    const provider = Stack.of(this).node.tryFindChild(
      `AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, "")}`,
    );
    if (provider)
      acknowledgeNag(
        provider,
        "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
        "The AwsCustomResource provider (one SetActiveReceiptRuleSet call per deploy) is created by aws-cdk-lib with the basic execution role; it only writes its own logs.",
      );
    acknowledgeNag(
      activation,
      "AwsSolutions-IAM5[Resource::*]",
      "ses:SetActiveReceiptRuleSet supports no resource-level permissions; the action is the only one granted.",
    );
  }
}
