/**
 * Every IAM action a Postern function is granted, in one place, so a review of the policy is a review of this
 * file. Grants are built from these lists by the constructs' `grant*` methods; nothing else names an action.
 */
export const ACTIONS = {
  /** DynamoDB reads by key. */
  tableGet: ["dynamodb:GetItem"],
  /** Several keys in one call (the thread index lookup of a reply's References). */
  tableBatchGet: ["dynamodb:BatchGetItem"],
  /** One partition (a thread's messages, a run's events). */
  tableQuery: ["dynamodb:Query"],
  /** Whole-table reads: only the small admin tables (the admin snapshot), never runtime state. */
  tableScan: ["dynamodb:Scan"],
  /**
   * Conditional single-item writes and atomic counters (no transactions: the local emulator has none). Functions
   * never delete and never batch-write (test/infra/iam-calls.test.ts holds the grants to the recorded calls).
   */
  tableWrite: ["dynamodb:PutItem", "dynamodb:UpdateItem"],
  objectRead: ["s3:GetObject"],
  objectWrite: ["s3:PutObject"],
  /**
   * Without ListBucket a GetObject on a missing key answers 403 instead of 404; the blob store reads "absent" as
   * a normal state (a run's first transcript), so the one function that needs it gets it, conditioned on the
   * prefixes it reads (S3 evaluates that check with the key as s3:prefix).
   */
  bucketList: ["s3:ListBucket"],
  queueSend: ["sqs:SendMessage"],
  /**
   * SESv2 SendEmail is authorised as ses:SendEmail for simple content and as ses:SendRawEmail for raw content (what
   * outbound sends), on the sending identity and the configuration set, and in the sandbox on each recipient's
   * identity too.
   */
  mailSend: ["ses:SendEmail", "ses:SendRawEmail"],
  /** The Bedrock adapter calls Converse only, which is authorised as bedrock:InvokeModel. */
  modelInvoke: ["bedrock:InvokeModel"],
  secretRead: ["secretsmanager:GetSecretValue"],
  parameterRead: ["ssm:GetParameter"],
  /** The custom resource that activates Postern's own receipt rule set, and deactivates it only if still active. */
  ruleSetActivate: ["ses:DescribeActiveReceiptRuleSet", "ses:SetActiveReceiptRuleSet"],
} as const;

export type ActionList = keyof typeof ACTIONS;
