import { createHash } from "node:crypto";
import { join } from "node:path";
import { Aws, CustomResource, Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import { Effect, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { Architecture, type CfnFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { type IReceiptRuleSet, ReceiptRule, ReceiptRuleSet, TlsPolicy } from "aws-cdk-lib/aws-ses";
import { S3 } from "aws-cdk-lib/aws-ses-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import { SqsSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import { Provider } from "aws-cdk-lib/custom-resources";
import { Construct } from "constructs";
import { PREFIXES } from "../../shared/config/index.ts";
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
  /** Repository root: the `create` mode's custom resource is bundled from infra/custom-resources. */
  readonly projectRoot: string;
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
    // The S3 action's own bucket statement checks only aws:SourceAccount: any receipt rule in this account (another
    // team's, another rule set) could then write into inbound/. SES sends aws:SourceArn, the receipt rule, as the
    // SES guide's bucket policy shows; this Deny narrows that Allow to Postern's rules (confused-deputy guard).
    props.store.bucket.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        principals: [ses],
        actions: ["s3:PutObject"],
        resources: [props.store.objectsArn("inbound")],
        conditions: { ArnNotLike: { "aws:SourceArn": ruleArns } },
      }),
    );

    if (props.ruleSet.mode === "create") this.activate(props.ruleSet.name, props.projectRoot);
  }

  /**
   * Make Postern's rule set the active one; on delete, deactivate it only if it is still the active one (SES then
   * has no active set); a set activated by someone since is left alone (infra/custom-resources/active-rule-set.ts).
   */
  private activate(name: string, projectRoot: string): void {
    const role = new Role(this, "ActivateRuleSetRole", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
    });
    role.addToPolicy(new PolicyStatement({ actions: [...ACTIONS.ruleSetActivate], resources: ["*"] }));
    const logGroup = new LogGroup(this, "ActivateRuleSetLogs", {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [logGroup.logGroupArn],
      }),
    );
    const onEvent = new NodejsFunction(this, "ActivateRuleSetFunction", {
      entry: join(projectRoot, "infra/custom-resources/active-rule-set.ts"),
      handler: "onEvent",
      projectRoot,
      depsLockFilePath: join(projectRoot, "package-lock.json"),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      timeout: Duration.seconds(30),
      role,
      logGroup,
      bundling: { forceDockerBundling: false, format: OutputFormat.ESM, target: "node24", minify: true },
    });
    const provider = new Provider(this, "ActivateRuleSetProvider", { onEventHandler: onEvent });
    const activation = new CustomResource(this, "ActivateRuleSet", {
      serviceToken: provider.serviceToken,
      properties: { RuleSetName: name },
    });
    for (const rule of this.rules) activation.node.addDependency(rule);
    acknowledgeNag(
      role,
      "AwsSolutions-IAM5[Resource::*]",
      "ses:DescribeActiveReceiptRuleSet and ses:SetActiveReceiptRuleSet support no resource-level permissions; they are the only actions granted.",
    );
    acknowledgeNag(
      provider,
      "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
      "The custom-resource Provider framework's own function (aws-cdk-lib) writes only its logs with the basic execution role.",
    );
    acknowledgeNag(
      provider,
      `AwsSolutions-IAM5[Resource::<${Stack.of(this).resolve(Stack.of(this).getLogicalId(onEvent.node.defaultChild as CfnFunction))}.Arn>:*]`,
      "The Provider framework may invoke any version of its one onEvent function.",
    );
    acknowledgeNag(
      provider,
      "AwsSolutions-L1",
      "The Provider framework's function runtime is chosen by aws-cdk-lib; it runs only at deploy time.",
    );
  }
}
