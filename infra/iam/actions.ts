/**
 * Every IAM action a Postern function is granted, in one place, so a review of the policy is a review of this
 * file. Grants are built from these lists by the constructs' `grant*` methods; nothing else names an action.
 */
export const ACTIONS = {
  /** DynamoDB reads the repositories make (GetItem, Query, Scan for the admin snapshot). */
  tableRead: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:Scan"],
  /** Conditional single-item writes and atomic counters (no transactions: the local emulator has none). */
  tableWrite: ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"],
  objectRead: ["s3:GetObject"],
  objectWrite: ["s3:PutObject"],
  /**
   * Without ListBucket a GetObject on a missing key answers 403 instead of 404; the blob store reads "absent" as
   * a normal state (a run's first transcript), so the one function that needs it gets it.
   */
  bucketList: ["s3:ListBucket"],
  queueSend: ["sqs:SendMessage"],
  /** SESv2 SendEmail (raw content included) is authorised as ses:SendEmail on the identity and config set. */
  mailSend: ["ses:SendEmail"],
  /** The Bedrock adapter calls Converse only, which is authorised as bedrock:InvokeModel. */
  modelInvoke: ["bedrock:InvokeModel"],
  secretRead: ["secretsmanager:GetSecretValue"],
  parameterRead: ["ssm:GetParameter"],
  /** The custom resource that activates Postern's own receipt rule set (create mode only). */
  ruleSetActivate: ["ses:SetActiveReceiptRuleSet"],
} as const;

export type ActionList = keyof typeof ACTIONS;
