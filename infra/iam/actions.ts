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
  /** The two halves of tableWrite, for a function that needs only one on a table. */
  tablePut: ["dynamodb:PutItem"],
  tableUpdate: ["dynamodb:UpdateItem"],
  /**
   * No function holds s3:ListBucket, so a GetObject on a missing key answers 403, not 404 (S3 GetObject API
   * reference, "Permissions"): every read names a key its caller knows was written (a run's transcript is read only
   * when the run item says it was saved), and a 403 fails loudly instead of reading as "absent".
   */
  objectRead: ["s3:GetObject"],
  objectWrite: ["s3:PutObject"],
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
  /**
   * A webhook signing secret made, rotated and removed (the console's; the CLI uses the operator's credentials).
   * DeleteSecret with ForceDeleteWithoutRecovery: a removed endpoint's secret must stop signing at once.
   */
  secretWrite: [
    "secretsmanager:CreateSecret",
    "secretsmanager:PutSecretValue",
    "secretsmanager:DeleteSecret",
  ],
  parameterRead: ["ssm:GetParameter"],
  /** The custom resource that activates Postern's own receipt rule set, and deactivates it only if still active. */
  ruleSetActivate: ["ses:DescribeActiveReceiptRuleSet", "ses:SetActiveReceiptRuleSet"],
} as const;
