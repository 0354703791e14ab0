/**
 * AWS list prices, us-east-1, on-demand, in USD, as published on each service's pricing page. Checked 2026-11-30
 * against the pages below (free tiers ignored: a deployment past its first months pays these). Change them here,
 * and only here, when AWS changes a price.
 */
export const PRICES = {
  checked: "2026-11-30",
  region: "us-east-1",
  lambda: {
    source: "https://aws.amazon.com/lambda/pricing/",
    /** Arm (Graviton) duration, per GB-second. */
    perGbSecondArm: 0.0000133334,
    perRequest: 0.2 / 1_000_000,
  },
  dynamodb: {
    source: "https://aws.amazon.com/dynamodb/pricing/on-demand/",
    /** On-demand write request unit (1 KB per standard write). */
    perWriteUnit: 0.625 / 1_000_000,
    /** On-demand read request unit (4 KB strongly consistent, or 2 eventually consistent reads). */
    perReadUnit: 0.125 / 1_000_000,
    /** Continuous backups (point-in-time recovery), per GB-month of table size. */
    pitrPerGbMonth: 0.2,
  },
  s3: {
    source: "https://aws.amazon.com/s3/pricing/",
    /** PUT, COPY, POST, LIST requests, S3 Standard. */
    perPut: 0.005 / 1000,
    /** GET, SELECT and all other requests, S3 Standard. */
    perGet: 0.0004 / 1000,
  },
  sqs: {
    source: "https://aws.amazon.com/sqs/pricing/",
    /** Standard queue; every 64 KB chunk of a payload is one request. */
    perRequest: 0.4 / 1_000_000,
  },
  ses: {
    source: "https://aws.amazon.com/ses/pricing/",
    perMailReceived: 0.1 / 1000,
    /** Each 256 KB of an incoming mail. */
    perIncomingChunk: 0.09 / 1000,
    perMailSent: 0.1 / 1000,
  },
  sns: {
    source: "https://aws.amazon.com/sns/pricing/",
    /** Each 64 KB chunk published; deliveries to SQS are free. */
    perPublish: 0.5 / 1_000_000,
  },
  kms: {
    source: "https://aws.amazon.com/kms/pricing/",
    /** Symmetric requests (SES's and SNS's data keys for the encrypted intake topic). */
    perRequest: 0.03 / 10_000,
    /** Each customer managed key, per month (prorated hourly); rotation adds $1 for each of its first two rotations. */
    perKeyMonth: 1,
  },
  logs: {
    source: "https://aws.amazon.com/cloudwatch/pricing/",
    /** Standard log ingestion, per GB. */
    perGbIngested: 0.5,
  },
  cloudwatch: {
    source: "https://aws.amazon.com/cloudwatch/pricing/",
    /** Standard-resolution alarm, per metric it evaluates (a metric-math alarm pays for each metric), per month. */
    perAlarmMetricMonth: 0.1,
    /** Each dashboard, per month. */
    perDashboardMonth: 3,
    /**
     * Each custom metric (a log metric filter's metric among them), per month for the first 10,000, prorated by the
     * hour: a metric costs only in the hours it receives a data point.
     */
    perMetricMonth: 0.3,
  },
  scheduler: {
    source: "https://aws.amazon.com/eventbridge/pricing/",
    /** EventBridge Scheduler invocations (past the monthly free tier, ignored here). */
    perInvocation: 1 / 1_000_000,
  },
  secretsManager: {
    source: "https://aws.amazon.com/secrets-manager/pricing/",
    /** Each secret, per month (prorated hourly). */
    perSecretMonth: 0.4,
    /** API calls (GetSecretValue among them), $0.05 per 10,000; added 2026-12-03 from the same page. */
    perApiCall: 0.05 / 10_000,
  },
} as const;
