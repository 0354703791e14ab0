/**
 * What a deployed stack costs each month whatever mail it takes, counted from its synthesized CloudFormation
 * template (so a construct that adds a key, an alarm or a queue trigger changes the bill here without anyone
 * remembering to). Prices: bench/aws-prices.ts. `npm run bench:cost` prints it beside the per-mail cost.
 *
 * Counted: customer managed KMS keys, CloudWatch alarms (per metric) and dashboards, the custom metrics the log
 * metric filters publish (by how often each publishes: every hour when one of its log groups is written by the
 * scheduler's tick, else in the hours with mail), DynamoDB point-in-time recovery (per GB of table, so it grows with
 * the mail kept), the EventBridge Scheduler tick (the schedule, the SQS message it sends and the agent-step
 * invocation it starts), the Lambda SQS pollers' empty receives, the Secrets Manager secrets the functions read, and
 * one secret per item under each prefix grant (a webhook endpoint, an MCP server). Every resource type of the
 * template is in BILLING, which says where it is priced or why it is not; test/infra/fixed-costs.test.ts fails on a
 * type that is not. Not counted: storage (DynamoDB $0.25, S3 about $0.023 per GB-month: it grows with the mail
 * kept), Cognito (per monthly active user, with a free tier), and free items (SSM standard parameters, function
 * URLs).
 */
import { PRICES } from "./aws-prices.ts";

export interface CfnTemplate {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>
  >;
}

export interface FixedCostOptions {
  readonly mailsPerMonth: number;
  /**
   * Items under a prefix-granted secret name (`postern/webhooks/` → the webhook endpoints, `postern/mcp/` → the MCP
   * servers), each keeping one secret; 0 when not given.
   */
  readonly secretItems?: Readonly<Record<string, number>>;
  /** DynamoDB bytes one accepted mail leaves in the tables (KB), for PITR: the month's mail is kept. */
  readonly storedKbPerMail: number;
  /** One tick's agent-step invocation: duration (ms), memory (MB), DynamoDB read units (the responsibilities it reads). */
  readonly tick: { readonly ms: number; readonly memoryMb: number; readonly readUnits: number };
}

export interface FixedLine {
  readonly what: string;
  readonly count: number;
  readonly usd: number;
}

/** 30-day month. */
const MINUTES_PER_MONTH = 30 * 24 * 60;
const HOURS_PER_MONTH = 30 * 24;

/**
 * The share of a month's hours with at least one mail, the mails arriving at random (Poisson): the hours in which a
 * function that logs only when it handles mail makes its log metric filters publish.
 */
export const hoursWithMail = (mails: number): number => 1 - Math.exp(-mails / HOURS_PER_MONTH);

/**
 * Where each resource type of the template is billed: `fixed` (a line of fixedCosts), `per-mail` (bench:cost's
 * measured calls), `storage` (grows with the mail kept; docs/deploy.md names it), or `free` with the reason.
 */
export const BILLING: Readonly<Record<string, string>> = {
  "AWS::KMS::Key": "fixed",
  "AWS::CloudWatch::Alarm": "fixed",
  "AWS::CloudWatch::Dashboard": "fixed",
  "AWS::Logs::MetricFilter": "fixed (its custom metric)",
  "AWS::Scheduler::Schedule": "fixed (the tick)",
  "AWS::Lambda::EventSourceMapping": "fixed (the pollers' empty receives); per-mail",
  "AWS::SecretsManager::Secret": "fixed",
  "AWS::DynamoDB::Table": "fixed (PITR); per-mail (requests); storage",
  "AWS::Lambda::Function": "per-mail",
  "AWS::SQS::Queue": "per-mail (requests)",
  "AWS::SNS::Topic": "per-mail (publishes)",
  "AWS::Logs::LogGroup": "per-mail (ingestion); storage",
  "AWS::S3::Bucket": "per-mail (requests); storage",
  "AWS::SES::ReceiptRule": "per-mail (SES receiving)",
  "AWS::SES::ConfigurationSet": "per-mail (SES sending)",
  "AWS::SES::ConfigurationSetEventDestination": "per-mail (its SNS publishes)",
  "AWS::Events::Rule": "free: a rule on the default bus matching AWS service events",
  "AWS::SES::EmailIdentity": "free",
  "AWS::SES::ReceiptRuleSet": "free",
  "AWS::SNS::Subscription": "free: SNS to SQS deliveries are free",
  "AWS::SQS::QueuePolicy": "free",
  "AWS::SNS::TopicPolicy": "free",
  "AWS::S3::BucketPolicy": "free",
  "AWS::IAM::Role": "free",
  "AWS::IAM::Policy": "free",
  "AWS::IAM::ManagedPolicy": "free",
  "AWS::Lambda::Permission": "free",
  "AWS::Lambda::Url": "free: function URL requests are billed as the function's invocations",
  "AWS::SSM::Parameter": "free: standard parameters",
  "AWS::Cognito::UserPool": "per monthly active user, with a free tier (docs/deploy.md)",
  "AWS::Cognito::UserPoolClient": "free",
  "AWS::Cognito::UserPoolDomain": "free",
  "AWS::Cognito::UserPoolGroup": "free",
  "AWS::CloudFormation::CustomResource": "per-deploy: one Lambda invocation",
  "Custom::AWS": "per-deploy: one Lambda invocation",
  "AWS::CDK::Metadata": "free",
};
/** Lambda long-polls each SQS queue with ReceiveMessage waiting up to 20 s (SQS's maximum): 3 receives a minute per poller. */
const RECEIVES_PER_POLLER_MINUTE = 3;
/**
 * Pollers on a quiet queue (Lambda developer guide, "Configuring scaling behavior for SQS event source mappings"):
 * Lambda scales back to five concurrent batches and can optimise to as few as two, except with maximum concurrency set.
 */
const POLLERS_QUIET = 2;
const POLLERS_WITH_MAX_CONCURRENCY = 5;

const resources = (t: CfnTemplate, type: string) => Object.values(t.Resources).filter((r) => r.Type === type);

/** `rate(1 minute)`, `rate(5 minutes)`, `rate(1 hour)`, `rate(1 day)` → invocations per 30-day month; null for cron/at. */
export function ratePerMonth(expression: string): number | null {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? "").replace(/s$/, "");
  const minutes = unit === "minute" ? n : unit === "hour" ? n * 60 : n * 1440;
  return MINUTES_PER_MONTH / minutes;
}

/** Metrics an alarm evaluates: one, or each MetricStat of a metric-math alarm (CloudWatch prices alarms per metric). */
function alarmMetrics(props: Record<string, unknown> | undefined): number {
  const metrics = props?.Metrics as { MetricStat?: unknown }[] | undefined;
  return metrics ? Math.max(1, metrics.filter((m) => m.MetricStat).length) : 1;
}

/** Each Resource the stack's policies grant `secretsmanager:GetSecretValue` on, as its JSON text. */
function secretGrants(t: CfnTemplate): string[] {
  const grants: string[] = [];
  for (const p of resources(t, "AWS::IAM::Policy")) {
    const statements = (
      p.Properties?.PolicyDocument as { Statement?: { Action?: unknown; Resource?: unknown }[] }
    )?.Statement;
    for (const s of statements ?? []) {
      const actions = Array.isArray(s.Action) ? s.Action : [s.Action];
      if (!actions.includes("secretsmanager:GetSecretValue")) continue;
      for (const r of Array.isArray(s.Resource) ? s.Resource : [s.Resource]) grants.push(JSON.stringify(r));
    }
  }
  return grants;
}

/** Secret names the stack's policies let a function read (`...:secret:name-??????` counts once). */
function secretsRead(t: CfnTemplate): Set<string> {
  const names = new Set<string>();
  for (const text of secretGrants(t)) {
    const name = /:secret:([^"]+?)(-\?{6})?"/.exec(text)?.[1];
    // A prefix grant (`postern/webhooks/*`, `postern/mcp/*`) names no secret the deploy creates: one per webhook
    // endpoint or MCP server, created by the operator later, so it scales with those, not with the stack
    // (docs/events.md, docs/mcp.md).
    if (name && !name.endsWith("*")) names.add(name);
  }
  return names;
}

/** Secret-name prefixes the stack's policies grant (`postern/webhooks/*`): one secret per item the operator adds. */
function secretPrefixes(t: CfnTemplate): Set<string> {
  const prefixes = new Set<string>();
  for (const text of secretGrants(t)) {
    const name = /:secret:([^"]+?)\*"/.exec(text)?.[1];
    if (name) prefixes.add(name);
  }
  return prefixes;
}

const refOf = (v: unknown): string => (v as { Ref?: string } | undefined)?.Ref ?? "";

/**
 * The custom metrics the log metric filters publish, by namespace and name. With a default value a filter publishes
 * a data point for every batch of its log group's events, matched or not: `always` when one of its log groups is
 * written by the scheduler's tick (a schedule's queue → its event source mapping → the function → its log group),
 * `withMail` when its groups are written only while mail flows. A filter without a default publishes only on a
 * match (a failure): not billed in a healthy month.
 */
export function customMetrics(t: CfnTemplate): { always: string[]; withMail: string[]; onMatch: string[] } {
  const ticked = new Set<string>();
  for (const s of resources(t, "AWS::Scheduler::Schedule")) {
    const queue = (s.Properties?.Target as { Arn?: { "Fn::GetAtt"?: [string, string] } } | undefined)?.Arn?.[
      "Fn::GetAtt"
    ]?.[0];
    for (const m of resources(t, "AWS::Lambda::EventSourceMapping")) {
      if (!queue || sourceOf(m.Properties) !== queue) continue;
      const fn = t.Resources[refOf(m.Properties?.FunctionName)];
      const group = refOf((fn?.Properties?.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup);
      if (group) ticked.add(group);
    }
  }
  const metrics = new Map<string, { ticked: boolean; publishes: boolean }>();
  for (const f of resources(t, "AWS::Logs::MetricFilter")) {
    const group = refOf(f.Properties?.LogGroupName);
    const transforms = (f.Properties?.MetricTransformations ?? []) as {
      MetricNamespace: string;
      MetricName: string;
      DefaultValue?: number;
      Dimensions?: unknown;
    }[];
    for (const m of transforms) {
      const key = `${m.MetricNamespace}/${m.MetricName}${m.Dimensions ? JSON.stringify(m.Dimensions) : ""}`;
      const was = metrics.get(key) ?? { ticked: false, publishes: false };
      const publishes = m.DefaultValue !== undefined;
      metrics.set(key, {
        ticked: was.ticked || (publishes && ticked.has(group)),
        publishes: was.publishes || publishes,
      });
    }
  }
  const names = (f: (v: { ticked: boolean; publishes: boolean }) => boolean) =>
    [...metrics].filter(([, v]) => f(v)).map(([k]) => k);
  return {
    always: names((v) => v.ticked),
    withMail: names((v) => v.publishes && !v.ticked),
    onMatch: names((v) => !v.publishes),
  };
}

/** The logical id an event source mapping's `EventSourceArn` points at (`{"Fn::GetAtt": [id, "Arn"]}`). */
function sourceOf(props: Record<string, unknown> | undefined): string {
  const arn = props?.EventSourceArn as { "Fn::GetAtt"?: [string, string] } | undefined;
  return arn?.["Fn::GetAtt"]?.[0] ?? "";
}

/** The fixed monthly lines, each priced; PITR is the only one that moves with `mailsPerMonth`. */
export function fixedCosts(t: CfnTemplate, o: FixedCostOptions): FixedLine[] {
  const keys = resources(t, "AWS::KMS::Key").length;
  const alarms = resources(t, "AWS::CloudWatch::Alarm");
  const alarmMetricCount = alarms.reduce((a, r) => a + alarmMetrics(r.Properties), 0);
  const dashboards = resources(t, "AWS::CloudWatch::Dashboard").length;
  const pitrTables = resources(t, "AWS::DynamoDB::Table").filter(
    (r) =>
      (r.Properties?.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled?: boolean } | undefined)
        ?.PointInTimeRecoveryEnabled === true,
  ).length;
  const ticks = resources(t, "AWS::Scheduler::Schedule").reduce(
    (a, r) => a + (ratePerMonth(String(r.Properties?.ScheduleExpression ?? "")) ?? 0),
    0,
  );
  const sqsMappings = resources(t, "AWS::Lambda::EventSourceMapping").filter(
    (r) => t.Resources[sourceOf(r.Properties)]?.Type === "AWS::SQS::Queue",
  );
  const pollers = sqsMappings.reduce(
    (a, r) =>
      a +
      ((r.Properties?.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency
        ? POLLERS_WITH_MAX_CONCURRENCY
        : POLLERS_QUIET),
    0,
  );
  const emptyReceives = pollers * RECEIVES_PER_POLLER_MINUTE * MINUTES_PER_MONTH;
  const secrets = secretsRead(t).size + resources(t, "AWS::SecretsManager::Secret").length;
  const storedGb = (o.mailsPerMonth * o.storedKbPerMail) / 1024 ** 2;
  const metrics = customMetrics(t);
  const metricMonths = metrics.always.length + metrics.withMail.length * hoursWithMail(o.mailsPerMonth);
  const tickGbSeconds = (o.tick.ms / 1000) * (o.tick.memoryMb / 1024);
  return [
    { what: `KMS customer managed keys (${keys})`, count: keys, usd: keys * PRICES.kms.perKeyMonth },
    {
      what: `CloudWatch alarms (${alarms.length}, ${alarmMetricCount} metric(s))`,
      count: alarmMetricCount,
      usd: alarmMetricCount * PRICES.cloudwatch.perAlarmMetricMonth,
    },
    {
      what: `CloudWatch dashboards (${dashboards})`,
      count: dashboards,
      usd: dashboards * PRICES.cloudwatch.perDashboardMonth,
    },
    {
      what: `CloudWatch custom metrics from log metric filters (${metrics.always.length + metrics.withMail.length}: ${metrics.always.length} every hour, the tick's function logs; ${metrics.withMail.length} in the hours with mail)`,
      count: metrics.always.length + metrics.withMail.length,
      usd: metricMonths * PRICES.cloudwatch.perMetricMonth,
    },
    {
      what: `DynamoDB PITR (${pitrTables} tables, ${storedGb.toFixed(3)} GB: the month's mail at ${o.storedKbPerMail} KB each)`,
      count: pitrTables,
      usd: pitrTables > 0 ? storedGb * PRICES.dynamodb.pitrPerGbMonth : 0,
    },
    {
      what: `Scheduler tick (${ticks} a month: schedule, SQS send + delete, agent-step ${o.tick.ms} ms, ${o.tick.readUnits} RRU)`,
      count: ticks,
      usd:
        ticks *
        (PRICES.scheduler.perInvocation +
          2 * PRICES.sqs.perRequest +
          PRICES.lambda.perRequest +
          tickGbSeconds * PRICES.lambda.perGbSecondArm +
          o.tick.readUnits * PRICES.dynamodb.perReadUnit),
    },
    {
      what: `SQS polling (${sqsMappings.length} queue triggers, ${pollers} pollers, ${emptyReceives} empty receives)`,
      count: emptyReceives,
      usd: emptyReceives * PRICES.sqs.perRequest,
    },
    {
      what: `Secrets Manager secrets read by the functions (${secrets})`,
      count: secrets,
      usd: secrets * PRICES.secretsManager.perSecretMonth,
    },
    ...[...secretPrefixes(t)].sort().map((prefix) => {
      const n = o.secretItems?.[prefix] ?? 0;
      return {
        what: `Secrets Manager, $0.40 a month per item under ${prefix}* (${n} counted)`,
        count: n,
        usd: n * PRICES.secretsManager.perSecretMonth,
      };
    }),
  ];
}
