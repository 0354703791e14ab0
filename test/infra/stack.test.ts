import { rmSync } from "node:fs";
import { Validations } from "aws-cdk-lib";
import { Match } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhooks } from "../../infra/constructs/webhooks.ts";
import { ROUND_LEASE_MS } from "../../shared/agent/wiring/loop-deps.ts";
import { SES_SEND_TIMEOUT_MS } from "../../shared/aws/ses-sender.ts";
import { ENV as RESOURCE_ENV, tableEnvName } from "../../shared/config/resources.ts";
import { TABLE_KEYS, TABLES } from "../../shared/config/tables.ts";
import { SEND_LEASE_MS } from "../../shared/outbound/process.ts";
import {
  FAILURE_CLASSES,
  FAILURE_LOG,
  FAILURE_METRICS,
  type FailureSource,
} from "../../shared/ports/failures.ts";
import { DEFAULT_POLICY, maxReceivesFor } from "../../shared/webhooks/policy.ts";
import {
  actionsOf,
  arnText,
  FIXTURES,
  logicalId,
  resourcesOf,
  roleStatements,
  type Statement,
  type Synthesized,
  synth,
} from "./synth.ts";

// One synth for the whole file: the template, its IAM, the snapshot and cdk-nag's verdict come from it.
let s: Synthesized;
let roles: { verify: string; agentStep: string; outbound: string };
let statements: { verify: Statement[]; agentStep: Statement[]; outbound: Statement[] };
beforeAll(() => {
  s = synth(`${FIXTURES}/existing-mode.config.json`);
  const f = s.stack.functions;
  roles = {
    verify: logicalId(s.stack, f.verify.role),
    agentStep: logicalId(s.stack, f.agentStep.role),
    outbound: logicalId(s.stack, f.outbound.role),
  };
  statements = {
    verify: roleStatements(s.template, roles.verify),
    agentStep: roleStatements(s.template, roles.agentStep),
    outbound: roleStatements(s.template, roles.outbound),
  };
}, 300_000);
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

const grants = (sts: Statement[], action: string | RegExp): string[] =>
  sts
    .filter((st) => st.Effect === "Allow")
    .filter((st) => actionsOf(st).some((a) => (typeof action === "string" ? a === action : action.test(a))))
    .flatMap((st) => resourcesOf(st).map(arnText));

describe("least privilege per function", () => {
  it("verify cannot call Bedrock or send mail, and reads raw mail only under inbound/", () => {
    expect(grants(statements.verify, /^bedrock:/)).toEqual([]);
    expect(grants(statements.verify, /^ses:/)).toEqual([]);
    expect(grants(statements.verify, "s3:GetObject")).toEqual(["<MailStoreMailA2DAC336.Arn>/inbound/*"]);
  });

  it("agent-step cannot read inbound/ (nor the whole bucket) and invokes only the catalog's Bedrock model", () => {
    const reads = grants(statements.agentStep, /^s3:(GetObject|\*)$/);
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) {
      expect(r).not.toContain("/inbound/");
      expect(r).not.toMatch(/\.Arn>\/\*$/);
    }
    // Sorted: @aws-cdk/aws-iam:minimizePolicies (cdk.json) orders a statement's resources.
    expect(grants(statements.agentStep, /^bedrock:/).sort()).toEqual([
      "arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0",
      "arn:<AWS::Partition>:bedrock:eu-west-1:111111111111:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ]);
    // The catalog's model key by name; MCP servers' credentials by their prefix only (shared/admin/mcp-server-item.ts).
    expect(grants(statements.agentStep, "secretsmanager:GetSecretValue").sort()).toEqual([
      "arn:<AWS::Partition>:secretsmanager:eu-west-1:111111111111:secret:postern/anthropic-??????",
      "arn:<AWS::Partition>:secretsmanager:eu-west-1:111111111111:secret:postern/mcp/*",
    ]);
    expect(grants(statements.agentStep, /^ses:/)).toEqual([]);
  });

  it("only outbound may send mail, and only as the registered identities through the config set", () => {
    const policies = Object.values(s.template.findResources("AWS::IAM::Policy")) as {
      Properties: { PolicyDocument: { Statement: Statement[] }; Roles: unknown[] };
    }[];
    const senders = policies
      .filter((p) => grants(p.Properties.PolicyDocument.Statement, /^ses:(Send|\*)/).length > 0)
      .flatMap((p) => p.Properties.Roles);
    expect(senders).toEqual([{ Ref: roles.outbound }]);
    // SESv2 authorises raw content as ses:SendRawEmail; the From condition holds the forced From (G9) in IAM too.
    const send = statements.outbound.filter((st) => actionsOf(st).includes("ses:SendRawEmail"));
    expect(send).toHaveLength(1);
    expect(actionsOf(send[0] as Statement).sort()).toEqual(["ses:SendEmail", "ses:SendRawEmail"]);
    // @aws-cdk/core:enablePartitionLiterals (cdk.json): a stack with a known region writes its partition out.
    expect(
      resourcesOf(send[0] as Statement)
        .map(arnText)
        .sort(),
    ).toEqual([
      "arn:aws:ses:eu-west-1:111111111111:configuration-set/<SendingConfigurationSetA216B40C>",
      "arn:aws:ses:eu-west-1:111111111111:identity/*",
    ]);
    expect(send[0]?.Condition).toEqual({
      StringLike: { "ses:FromAddress": ["*@agents.example.com", "*@help.example.org"] },
    });
    expect(grants(statements.outbound, /^bedrock:/)).toEqual([]);
  });

  it("no function has a wildcard action or a bucket-wide object grant", () => {
    for (const sts of Object.values(statements)) {
      for (const st of sts) for (const a of actionsOf(st)) expect(a).not.toMatch(/\*/);
      for (const r of grants(sts, /^s3:/))
        expect(r).toMatch(/\/(inbound|mail|files|transcripts|outbound)\/\*$|\.Arn>$/);
    }
  });

  it("no function may ListBucket: a missing transcript is known from the run item, never from S3's 404", () => {
    for (const sts of Object.values(statements)) expect(grants(sts, "s3:ListBucket")).toEqual([]);
  });

  it("functions query only the indexes they read: agent-step a thread's mail, none the console's lists", () => {
    const indexes = (sts: Statement[]) => grants(sts, /^dynamodb:/).filter((r) => r.includes("/index/"));
    expect(indexes(statements.verify)).toEqual([]);
    expect(indexes(statements.outbound)).toEqual([]);
    expect(indexes(statements.agentStep)).toEqual([
      `<${logicalId(s.stack, s.stack.tables.tables.messages)}.Arn>/index/byThread`,
    ]);
    const onIndex = statements.agentStep.filter((st) =>
      resourcesOf(st)
        .map(arnText)
        .some((r) => r.includes("/index/")),
    );
    expect(onIndex.flatMap(actionsOf)).toEqual(["dynamodb:Query"]);
  });
});

describe("mail intake", () => {
  it("one receipt rule per domain: recipient = domain, scanning on, one S3 action to inbound/ that notifies the topic", () => {
    const topic = logicalId(s.stack, s.stack.intake.topic);
    for (const domain of ["agents.example.com", "help.example.org"]) {
      s.template.hasResourceProperties("AWS::SES::ReceiptRule", {
        RuleSetName: "default-rule-set",
        Rule: {
          Name: `postern-${domain}`,
          Recipients: [domain],
          Enabled: true,
          ScanEnabled: true,
          Actions: [
            {
              S3Action: {
                BucketName: { Ref: logicalId(s.stack, s.stack.store.bucket) },
                ObjectKeyPrefix: "inbound/",
                TopicArn: { Ref: topic },
              },
            },
          ],
        },
      });
    }
    s.template.resourceCountIs("AWS::SES::ReceiptRule", 2);
    // existing mode: no rule set of our own, nothing that would replace the account's active set.
    s.template.resourceCountIs("AWS::SES::ReceiptRuleSet", 0);
    s.template.resourceCountIs("Custom::AWS", 0);
  });

  it("lets SES write only inbound/ from this account, and publish only from this account's rules", () => {
    s.template.hasResourceProperties("AWS::S3::BucketPolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: "s3:PutObject",
            Principal: { Service: "ses.amazonaws.com" },
            // aws-cdk-lib's S3 receipt action writes the account as a pseudo-parameter reference.
            Condition: { StringEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" } } },
            Resource: {
              "Fn::Join": [
                "",
                [{ "Fn::GetAtt": [logicalId(s.stack, s.stack.store.bucket), "Arn"] }, "/inbound/*"],
              ],
            },
          }),
        ]),
      },
    });
    s.template.hasResourceProperties("AWS::SNS::TopicPolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: "sns:Publish",
            Principal: { Service: "ses.amazonaws.com" },
            Condition: Match.objectLike({ StringEquals: { "aws:SourceAccount": "111111111111" } }),
          }),
        ]),
      },
    });
    // The envelope (recipients, verdicts) reaches verify as SES wrote it: raw delivery, no SNS wrapper.
    s.template.hasResourceProperties("AWS::SNS::Subscription", {
      Protocol: "sqs",
      RawMessageDelivery: true,
      Endpoint: { "Fn::GetAtt": [logicalId(s.stack, s.stack.queues.verify.queue), "Arn"] },
    });
    s.template.hasResourceProperties("AWS::SNS::Topic", { KmsMasterKeyId: Match.anyValue() });
  });

  it("the mail bucket is encrypted, versioned, private, TLS-only and keeps inbound evidence", () => {
    s.template.hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
      VersioningConfiguration: { Status: "Enabled" },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: Match.anyValue(),
    });
    const mail = s.template.findResources("AWS::S3::Bucket")[logicalId(s.stack, s.stack.store.bucket)];
    expect(mail?.DeletionPolicy).toBe("Retain");
    const rules = JSON.stringify(mail?.Properties?.LifecycleConfiguration);
    // Evidence is never expired by the stack; only non-current versions are.
    expect(rules).not.toMatch(/"ExpirationInDays"/);
    s.template.hasResourceProperties("AWS::S3::BucketPolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        ]),
      },
    });
  });
});

describe("tables", () => {
  it("every table of TABLES: on demand, PITR, encrypted, retained, keys and TTL as specified", () => {
    s.template.resourceCountIs("AWS::DynamoDB::Table", TABLE_KEYS.length);
    for (const key of TABLE_KEYS) {
      const spec: { partitionKey: string; sortKey?: string; ttlAttribute?: string } = TABLES[key];
      s.template.hasResource("AWS::DynamoDB::Table", {
        DeletionPolicy: "Retain",
        Properties: Match.objectLike({
          BillingMode: "PAY_PER_REQUEST",
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
          KeySchema: [
            { AttributeName: spec.partitionKey, KeyType: "HASH" },
            ...(spec.sortKey ? [{ AttributeName: spec.sortKey, KeyType: "RANGE" }] : []),
          ],
          ...(spec.ttlAttribute
            ? { TimeToLiveSpecification: { AttributeName: spec.ttlAttribute, Enabled: true } }
            : {}),
        }),
      });
    }
  });
});

/**
 * Each deployed table as CloudFormation knows it: its logical id (a new id is a new, empty table; the old one is
 * retained), its key schema with types (a change replaces the table) and its indexes (a rename drops one and builds
 * another). Every pipeline function would then read and write a table without the data. Change this pin only
 * together with a migration written in docs/deploy.md, "Migrations".
 */
const TABLE_PIN: Record<string, string> = {
  TablesagentsDC5C010B: "address S",
  TablesaccessRulesAFA41F9D: "agent S, rule S",
  TablesoutboundRules32332971: "agent S, rule S",
  Tablestoolkits90A81FCA: "id S",
  Tablesresponsibilities7C52EB46: "id S",
  Tablesapprovers3800EF47: "toolkit S, address S",
  TablesmcpServers91822D90: "id S",
  Tablesinbound4CFA89C8: "sesMessageId S, recipient S | refusalsByDay: refusalDay S, refusalAt S",
  Tablesmessages13660B8D: "agent S, id S | byThread: threadId S, id S",
  Tablesthreads56A8D86C: "agent S, threadId S | byActivity: agent S, lastMessageAt S",
  Tablesruns7A70DAD5: "runId S | byAgent: agent S, createdAt S",
  TablesrunEventsA788C967: "runId S, seq N",
  TablesstateBC776594: "pk S, sk S | plansByState: planState S, planAt S",
  Tablesaudit3BC6CFAF: "stream S, at S",
  // Added with signed events: a new table, created empty on deploy (nothing existed to migrate).
  Tableswebhooks91698196: "id S",
};

describe("table keys are pinned", () => {
  it("every table's logical id, key schema and index names are the pinned ones (a change needs a migration)", () => {
    interface Key {
      AttributeName: string;
      KeyType: string;
    }
    const shape = (p: {
      KeySchema: Key[];
      AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
      GlobalSecondaryIndexes?: { IndexName: string; KeySchema: Key[] }[];
    }) => {
      const typed = (keys: Key[]) =>
        keys
          .map((k) => {
            const def = p.AttributeDefinitions.find((a) => a.AttributeName === k.AttributeName);
            return `${k.AttributeName} ${def?.AttributeType}`;
          })
          .join(", ");
      return [
        typed(p.KeySchema),
        ...(p.GlobalSecondaryIndexes ?? []).map((g) => `${g.IndexName}: ${typed(g.KeySchema)}`),
      ].join(" | ");
    };
    const deployed = Object.fromEntries(
      Object.entries(s.template.findResources("AWS::DynamoDB::Table")).map(([id, r]) => [
        id,
        shape(r.Properties as Parameters<typeof shape>[0]),
      ]),
    );
    expect(
      deployed,
      "A table's logical id, keys or index names changed: the deployed table would be replaced by a new, empty one " +
        "(or an index dropped). Write the migration in docs/deploy.md, section Migrations, then update TABLE_PIN.",
    ).toEqual(TABLE_PIN);
  });
});

/** Every work queue with its consumer: the pipeline's three and the delivery events'. */
const workQueues = () => [
  ...(["verify", "agentStep", "outbound"] as const).map((name) => ({
    name,
    queue: s.stack.queues[name],
    fn: s.stack.functions[name].fn,
  })),
  { name: "deliveryEvents", queue: s.stack.deliveryEvents.queue, fn: s.stack.deliveryEvents.fn.fn },
];

describe("queues and functions", () => {
  it("the events queue: its own retries (redrive from the schedule is a backstop), a DLQ, SSE; every emitter may only send to it", () => {
    const queues = s.template.findResources("AWS::SQS::Queue");
    const { queue, deadLetterQueue } = s.stack.webhooks.queue;
    const q = queues[logicalId(s.stack, queue)]?.Properties as Record<string, unknown>;
    expect(q.RedrivePolicy).toEqual({
      deadLetterTargetArn: { "Fn::GetAtt": [logicalId(s.stack, deadLetterQueue), "Arn"] },
      maxReceiveCount: maxReceivesFor(DEFAULT_POLICY),
    });
    expect(Webhooks.MAX_RECEIVES).toBe(maxReceivesFor(DEFAULT_POLICY));
    expect(q.SqsManagedSseEnabled).toBe(true);
    const policies = Object.values(s.template.findResources("AWS::IAM::Policy")).map((p) =>
      JSON.stringify(p.Properties),
    );
    const events = logicalId(s.stack, queue);
    for (const fn of [s.stack.functions.verify, s.stack.functions.agentStep, s.stack.functions.outbound]) {
      const role = logicalId(s.stack, fn.role);
      const mine = policies.filter((p) => p.includes(`"Ref":"${role}"`));
      expect(
        mine.some((p) => p.includes("sqs:SendMessage") && p.includes(events)),
        role,
      ).toBe(true);
      expect(
        mine.some((p) => p.includes("secretsmanager:") && p.includes("postern/webhooks")),
        role,
      ).toBe(false);
    }
    // The worker's state-table grant is held to its own item families.
    const worker = logicalId(s.stack, s.stack.webhooks.fn.role);
    const state = logicalId(s.stack, s.stack.tables.tables.state);
    const stateGrants = policies
      .filter((p) => p.includes(`"Ref":"${worker}"`))
      .flatMap((p) => JSON.parse(p).PolicyDocument.Statement as { Resource: unknown; Condition?: unknown }[])
      .filter((st) => JSON.stringify(st.Resource).includes(state));
    expect(stateGrants.map((st) => st.Condition)).toEqual([
      { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["webhook-*", "failures#*", "admin#version"] } },
    ]);
  });

  it("every queue's age alarm has a DLQ-depth alarm beside it: a poison message leaves the age metric after its third receive", () => {
    const resources = s.template.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    const alarms = Object.values(resources).filter((r) => r.Type === "AWS::CloudWatch::Alarm");
    const queueOf = (a: { Properties: Record<string, unknown> }) =>
      (
        a.Properties.Dimensions as { Name: string; Value: { "Fn::GetAtt": [string, string] } }[] | undefined
      )?.find((d) => d.Name === "QueueName")?.Value["Fn::GetAtt"][0];
    const ageAlarms = alarms.filter((a) => a.Properties.MetricName === "ApproximateAgeOfOldestMessage");
    expect(ageAlarms.length).toBeGreaterThanOrEqual(5);
    for (const age of ageAlarms) {
      const queue = resources[queueOf(age) ?? ""];
      const redrive = queue?.Properties.RedrivePolicy as
        | { deadLetterTargetArn: { "Fn::GetAtt": [string, string] }; maxReceiveCount: number }
        | undefined;
      expect(redrive, `queue ${queueOf(age)} has a redrive`).toBeDefined();
      const dlq = redrive?.deadLetterTargetArn["Fn::GetAtt"][0];
      const depth = alarms.filter(
        (a) =>
          a.Properties.MetricName === "ApproximateNumberOfMessagesVisible" &&
          queueOf(a) === dlq &&
          a.Properties.Threshold === 1 &&
          a.Properties.ComparisonOperator === "GreaterThanOrEqualToThreshold",
      );
      expect(depth, `the DLQ of ${queueOf(age)} is alarmed on`).toHaveLength(1);
    }
  });

  it("every work queue has a DLQ (maxReceiveCount 5), SSE, and visibility = 6 × its consumer's timeout", () => {
    const fns = s.template.findResources("AWS::Lambda::Function");
    const queues = s.template.findResources("AWS::SQS::Queue");
    for (const { queue, fn: consumer } of workQueues()) {
      const q = queues[logicalId(s.stack, queue.queue)]?.Properties as Record<string, unknown>;
      const fn = fns[logicalId(s.stack, consumer)]?.Properties as { Timeout: number };
      expect(q.RedrivePolicy).toEqual({
        deadLetterTargetArn: {
          "Fn::GetAtt": [logicalId(s.stack, queue.deadLetterQueue), "Arn"],
        },
        maxReceiveCount: 5,
      });
      expect(q.VisibilityTimeout).toBe(fn.Timeout * 6);
      expect(q.SqsManagedSseEnabled).toBe(true);
    }
  });

  it("every work queue's oldest message alarms on the topic past one retry cycle: visibility + its consumer's timeout", () => {
    const fns = s.template.findResources("AWS::Lambda::Function");
    const alarms = Object.values(s.template.findResources("AWS::CloudWatch::Alarm")).map(
      (a) =>
        a.Properties as {
          MetricName: string;
          Dimensions: { Name: string; Value: unknown }[];
          Threshold: number;
          Statistic: string;
          AlarmActions: unknown[];
        },
    );
    const topic = logicalId(s.stack, s.stack.operations.alarmTopic);
    const ages = alarms.filter((a) => a.MetricName === "ApproximateAgeOfOldestMessage");
    expect(ages).toHaveLength(5);
    // The events queue delays its own retries (up to 12 h each): it is stalled only past the whole schedule.
    const events = logicalId(s.stack, s.stack.webhooks.queue.queue);
    const eventsAge = ages.filter((a) =>
      a.Dimensions.some((d) => d.Name === "QueueName" && arnText(d.Value) === `<${events}.QueueName>`),
    );
    expect(eventsAge.map((a) => a.Threshold)).toEqual([30 * 3600]);
    for (const { name, queue: q, fn: consumer } of workQueues()) {
      const queue = logicalId(s.stack, q.queue);
      const fn = fns[logicalId(s.stack, consumer)]?.Properties as { Timeout: number };
      const timeout = fn.Timeout;
      const mine = ages.filter((a) =>
        a.Dimensions.some((d) => d.Name === "QueueName" && arnText(d.Value) === `<${queue}.QueueName>`),
      );
      expect(mine, name).toHaveLength(1);
      expect(mine[0]?.Threshold, name).toBe(timeout * 6 + timeout);
      expect(mine[0]?.Statistic).toBe("Maximum");
      expect(mine[0]?.AlarmActions).toEqual([{ Ref: topic }]);
    }
  });

  it("each lease outlives its holder and expires before its queue redelivers (a crashed step is taken over)", () => {
    const fns = s.template.findResources("AWS::Lambda::Function");
    const queues = s.template.findResources("AWS::SQS::Queue");
    const seconds = (name: "agentStep" | "outbound") => {
      const fn = fns[logicalId(s.stack, s.stack.functions[name].fn)]?.Properties as { Timeout: number };
      const q = queues[logicalId(s.stack, s.stack.queues[name].queue)]?.Properties as {
        VisibilityTimeout: number;
      };
      return { timeout: fn.Timeout, visibility: q.VisibilityTimeout };
    };
    // A round's lease: no live agent-step loses its round, and the redelivery after a crash finds it expired.
    const step = seconds("agentStep");
    expect(ROUND_LEASE_MS / 1000).toBeGreaterThan(step.timeout);
    expect(ROUND_LEASE_MS / 1000).toBeLessThan(step.visibility);
    // A send's lease: longer than one SES call, and expired when the redelivery after a crash judges the item.
    expect(SEND_LEASE_MS).toBeGreaterThan(SES_SEND_TIMEOUT_MS);
    expect(SEND_LEASE_MS / 1000).toBeLessThan(seconds("outbound").visibility);
  });

  it("outbound's timeout fits a whole batch of sends that each wait out SES, with room to record them", () => {
    const fnId = logicalId(s.stack, s.stack.functions.outbound.fn);
    const fn = s.template.toJSON().Resources[fnId] as { Properties: { Timeout: number } };
    const mapping = Object.values(s.template.findResources("AWS::Lambda::EventSourceMapping")).find(
      (m) => (m.Properties.FunctionName as { Ref: string }).Ref === fnId,
    ) as { Properties: { BatchSize: number } };
    expect(fn.Properties.Timeout).toBeGreaterThanOrEqual(
      (mapping.Properties.BatchSize * SES_SEND_TIMEOUT_MS) / 1000 + 30,
    );
  });

  it("functions: nodejs24.x on arm64, the config shipped in /var/task, every resource env var set", () => {
    const fns = Object.values(s.template.findResources("AWS::Lambda::Function"));
    expect(fns).toHaveLength(5);
    const envNames = [
      ...TABLE_KEYS.map(tableEnvName),
      RESOURCE_ENV.bucket,
      RESOURCE_ENV.verifyQueue,
      RESOURCE_ENV.agentStepQueue,
      RESOURCE_ENV.outboundQueue,
      RESOURCE_ENV.eventsQueue,
      RESOURCE_ENV.eventsDeadLetterQueue,
    ];
    for (const fn of fns) {
      const p = fn.Properties as {
        Runtime: string;
        Architectures: string[];
        Handler: string;
        Environment: { Variables: Record<string, unknown> };
      };
      expect(p.Runtime).toBe("nodejs24.x");
      expect(p.Architectures).toEqual(["arm64"]);
      expect(p.Handler).toBe("index.handler");
      expect(p.Environment.Variables.POSTERN_CONFIG_FILE).toBe("/var/task/existing-mode.config.json");
      for (const n of envNames) expect(p.Environment.Variables[n], n).toBeDefined();
    }
  });

  it("functions run on demand with the role's keys in their environment, as the bundles' credential stub needs", () => {
    // infra/bundling.ts LAMBDA_STUBS: each bundle keeps only the credential chain's environment link. Lambda puts
    // the execution role's keys there for on-demand functions; a capacity provider (Managed Instances) serves them
    // from a container endpoint instead, and an AWS_* variable of ours (AWS_PROFILE, a credentials URI, a web
    // identity file) would point the real chain elsewhere. Any of these needs the stub to go first.
    const fns = Object.values(s.template.findResources("AWS::Lambda::Function"));
    expect(fns).toHaveLength(5);
    for (const fn of fns) {
      const p = fn.Properties as Record<string, unknown> & { Environment: { Variables: object } };
      expect(p.CapacityProviderConfig).toBeUndefined();
      expect(p.SnapStart).toBeUndefined();
      expect(Object.keys(p.Environment.Variables).filter((k) => k.startsWith("AWS_"))).toEqual([]);
    }
  });

  it("SQS triggers report partial batch failures; agent-step is one message per call, bounded without a reservation", () => {
    const mappings = Object.values(s.template.findResources("AWS::Lambda::EventSourceMapping"));
    expect(mappings).toHaveLength(5);
    for (const m of mappings) expect(m.Properties.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"]);
    const fnId = logicalId(s.stack, s.stack.functions.agentStep.fn);
    s.template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      FunctionName: { Ref: fnId },
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    // A reservation would fail the deploy on a new account (quota 10, unreserved minimum 100): none by default.
    const agentStep = s.template.toJSON().Resources[fnId] as { Properties: Record<string, unknown> };
    expect(agentStep.Properties.Timeout).toBe(600);
    expect(agentStep.Properties.ReservedConcurrentExecutions).toBeUndefined();
    s.template.hasResourceProperties("AWS::Logs::LogGroup", { RetentionInDays: 90 });
  });

  it("a tick every minute goes to the agent-step queue through a role only this account's scheduler assumes", () => {
    s.template.hasResourceProperties("AWS::Scheduler::Schedule", {
      ScheduleExpression: "rate(1 minute)",
      Target: {
        Arn: { "Fn::GetAtt": [logicalId(s.stack, s.stack.queues.agentStep.queue), "Arn"] },
        Input: '{"tick":"<aws.scheduler.scheduled-time>"}',
      },
    });
    s.template.hasResourceProperties("AWS::IAM::Role", {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: "scheduler.amazonaws.com" },
            Condition: { StringEquals: { "aws:SourceAccount": "111111111111" } },
          }),
        ],
      },
    });
  });
});

describe("sending and operations", () => {
  it("an Easy DKIM identity per domain with a custom MAIL FROM, and the named configuration set", () => {
    s.template.resourceCountIs("AWS::SES::EmailIdentity", 2);
    s.template.hasResourceProperties("AWS::SES::EmailIdentity", {
      EmailIdentity: "agents.example.com",
      MailFromAttributes: { MailFromDomain: "bounce.agents.example.com" },
      ConfigurationSetAttributes: { ConfigurationSetName: Match.anyValue() },
    });
    s.template.hasResourceProperties("AWS::SES::ConfigurationSet", { Name: "postern" });
  });

  it("alarms: each DLQ, each function's errors and throttles, SES bounce and complaint rates; a dashboard", () => {
    const alarms = Object.values(s.template.findResources("AWS::CloudWatch::Alarm")).map(
      (a) => a.Properties as { MetricName: string; Namespace: string; AlarmActions: unknown[] },
    );
    const count = (metric: string) => alarms.filter((a) => a.MetricName === metric).length;
    expect(count("ApproximateNumberOfMessagesVisible")).toBe(5);
    expect(count("Errors")).toBe(5);
    expect(count("Throttles")).toBe(5);
    expect(count("Reputation.BounceRate")).toBe(1);
    expect(count("Reputation.ComplaintRate")).toBe(1);
    expect(count("UnknownSendOutcome")).toBe(1);
    s.template.hasResourceProperties("AWS::Logs::MetricFilter", {
      FilterPattern: '{ $.message = "outbound-send-outcome-unknown" }',
    });
    for (const a of alarms) expect(a.AlarmActions).toHaveLength(1);
    s.template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
  });

  it("SES events of the configuration set (bounce, complaint, reject, delivery delay) reach the recorder's queue", () => {
    s.template.hasResourceProperties("AWS::SES::ConfigurationSetEventDestination", {
      ConfigurationSetName: Match.anyValue(),
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: ["bounce", "complaint", "reject", "deliveryDelay"],
        EventBridgeDestination: {
          EventBusArn: Match.anyValue(),
        },
      },
    });
    const queue = logicalId(s.stack, s.stack.deliveryEvents.queue.queue);
    s.template.hasResourceProperties("AWS::Events::Rule", {
      EventPattern: {
        source: ["aws.ses"],
        "detail-type": [
          "Email Bounced",
          "Email Complaint Received",
          "Email Rejected",
          "Email Delivery Delayed",
        ],
        detail: { mail: { tags: { "ses:configuration-set": [{ Ref: Match.anyValue() }] } } },
      },
      Targets: [Match.objectLike({ Arn: { "Fn::GetAtt": [queue, "Arn"] } })],
    });
    // The recorder writes only delivery items of the state table, and reads the webhook endpoints (an event is
    // queued only when one subscribes).
    const recorder = roleStatements(s.template, logicalId(s.stack, s.stack.deliveryEvents.fn.role));
    const dynamo = recorder.filter((st) => actionsOf(st).some((a) => a.startsWith("dynamodb:")));
    expect(dynamo.map((st) => [actionsOf(st).sort(), resourcesOf(st).map(arnText), st.Condition])).toEqual([
      [
        ["dynamodb:GetItem", "dynamodb:PutItem"],
        [`<${logicalId(s.stack, s.stack.tables.tables.state)}.Arn>`],
        { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["delivery#*"] } },
      ],
      [["dynamodb:Scan"], [`<${logicalId(s.stack, s.stack.tables.tables.webhooks)}.Arn>`], undefined],
    ]);
  });

  it("G19: one metric per failure class, counted from that class's log line in its function's logs, alarmed on", () => {
    const filters = Object.values(s.template.findResources("AWS::Logs::MetricFilter")).map(
      (f) =>
        f.Properties as {
          LogGroupName: unknown;
          FilterPattern: string;
          MetricTransformations: { MetricName: string; MetricNamespace: string }[];
        },
    );
    const alarms = Object.values(s.template.findResources("AWS::CloudWatch::Alarm")).map(
      (a) => a.Properties as { MetricName: string; Namespace: string; AlarmActions: unknown[] },
    );
    const topic = logicalId(
      s.stack,
      s.stack.node.findChild("Operations").node.findChild("AlarmTopic") as never,
    );
    const logGroupOf = (source: FailureSource) =>
      (source === "webhooks"
        ? s.stack.webhooks.fn
        : source === "deliveryEvents"
          ? s.stack.deliveryEvents.fn
          : s.stack.functions[source]
      ).logGroup;
    for (const cls of FAILURE_CLASSES) {
      const { metric, source } = FAILURE_METRICS[cls];
      const alsoFrom: readonly FailureSource[] = FAILURE_METRICS[cls].alsoFrom ?? [];
      const filter = filters.find((f) => f.MetricTransformations[0]?.MetricName === metric);
      expect(filter, metric).toBeDefined();
      expect(filter?.FilterPattern).toBe(`{ ($.message = "${FAILURE_LOG}") && ($.failureClass = "${cls}") }`);
      expect(filter?.MetricTransformations[0]?.MetricNamespace).toBe("Postern");
      // The log group of the function that reports the class (a filter elsewhere would never count).
      expect(JSON.stringify(filter?.LogGroupName)).toContain(logicalId(s.stack, logGroupOf(source) as never));
      // Every other function that writes the class's line counts into the same metric.
      const groups = filters
        .filter((f) => f.MetricTransformations[0]?.MetricName === metric)
        .map((f) => JSON.stringify(f.LogGroupName));
      for (const other of alsoFrom)
        expect(
          groups.some((g) => g.includes(logicalId(s.stack, logGroupOf(other) as never))),
          `${metric} from ${other}`,
        ).toBe(true);
      // An event the queue refuses is logged by whichever function emitted it: the worker and all four emitters.
      if (cls === "webhook-undelivered")
        for (const emitter of ["webhooks", "verify", "agentStep", "outbound", "deliveryEvents"] as const)
          expect(
            groups.some((g) => g.includes(logicalId(s.stack, logGroupOf(emitter) as never))),
            `${metric} from ${emitter}`,
          ).toBe(true);
      const alarm = alarms.filter((a) => a.MetricName === metric && a.Namespace === "Postern");
      expect(alarm, metric).toHaveLength(1);
      expect(JSON.stringify(alarm[0]?.AlarmActions)).toContain(topic);
    }
  });

  it("outputs the DNS records (MX to SES inbound, DKIM CNAMEs) and the resources file for the CLI", () => {
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const values = Object.values(outputs).map((o) => arnText(o.Value));
    expect(values).toContain("agents.example.com MX 10 inbound-smtp.eu-west-1.amazonaws.com");
    expect(values).toContain("help.example.org MX 10 inbound-smtp.eu-west-1.amazonaws.com");
    const identity = logicalId(s.stack, s.stack.sending.identities.get("agents.example.com") as never);
    for (const n of [1, 2, 3])
      expect(values).toContain(
        `<${identity}.DkimDNSTokenName${n}> CNAME <${identity}.DkimDNSTokenValue${n}>`,
      );
    const resources = arnText(outputs.PosternResources?.Value);
    for (const k of [...TABLE_KEYS, "bucket", "verify", "agentStep", "outbound", "region"])
      expect(resources).toContain(`"${k}":`);
    expect(resources).not.toContain("endpoints");
  });
});

describe("cdk-nag (AwsSolutions)", () => {
  it("reports no unacknowledged finding", () => {
    const nag = s.report.pluginReports.filter((r) => r.pluginName === "AwsSolutions");
    expect(nag.flatMap((r) => r.violations.map((v) => v.ruleName))).toEqual([]);
  });

  it("every acknowledgement names a rule and carries a specific reason", () => {
    const acks = collectAcknowledgements(s.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const a of acks) {
      expect(a.id).toMatch(/^AwsSolutions::AwsSolutions-[A-Z]+\d+/);
      expect(a.reason.length, a.id).toBeGreaterThan(40);
    }
  });
});

describe("snapshot", () => {
  it("matches (asset hashes masked)", () => {
    const text = JSON.stringify(s.template.toJSON(), null, 1).replace(/[0-9a-f]{64}/g, "<asset-hash>");
    expect(JSON.parse(text)).toMatchSnapshot();
  });
});

/** Our acknowledgements of cdk-nag rules (CDK's own, e.g. CloudFormation-Validate, are not ours to judge). */
function collectAcknowledgements(root: IConstruct): { id: string; reason: string }[] {
  return root.node
    .findAll()
    .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
    .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ id, reason })))
    .filter((a) => a.id.includes("AwsSolutions"));
}
