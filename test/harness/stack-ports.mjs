/** `postern start`'s default ports: SMTP intake, S3/SQS/SNS, DynamoDB, SES capture, console (cli/commands/start.ts). */
export const STACK_PORTS = Object.freeze([2525, 4566, 4567, 4568, 4570]);
