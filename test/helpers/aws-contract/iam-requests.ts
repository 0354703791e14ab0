// What AWS authorizes for each SDK call our functions make: the IAM action(s), the resource ARN(s) as they are in a
// deployed account, and the request context keys AWS sets. The special cases are AWS's documented ones:
// - SESv2 SendEmail with raw content is authorized as ses:SendRawEmail (simple content as ses:SendEmail), on the
//   sending identity and on the configuration set it names, with ses:FromAddress / ses:Recipients /
//   ses:ApiVersion "2" in the context; in the SES sandbox also on each recipient's identity.
// - An S3 read of a missing key answers 404 only to a caller allowed s3:ListBucket, which S3 evaluates with the
//   key as s3:prefix (the 403-vs-404 rule of the GetObject/HeadObject references); our blob store relies on the
//   404, so a call that met NoSuchKey locally also needs that ListBucket in AWS.
// - Bedrock Converse is authorized as bedrock:InvokeModel; through a cross-region inference profile, on the
//   profile and on the foundation model in every region the profile routes to.
// - The conditional and batch DynamoDB writes are authorized per table as PutItem/UpdateItem/BatchWriteItem.

import type { ObservedCall } from "../../../shared/aws/observe.ts";

export interface IamRequest {
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | string[]>>;
}

export interface DeployedNames {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  /** Local table name → deployed table ARN. */
  tableArn(localName: string): string;
  /** Local bucket name → deployed bucket name. */
  bucket(localName: string): string;
  /** Local queue URL → deployed queue ARN. */
  queueArn(localUrl: string): string;
  /** Configuration set the deployed functions name (local sends may name none). */
  readonly configurationSet: string | undefined;
  /** Regions a cross-region inference profile id routes to (by its prefix). */
  profileRegions(prefix: string): readonly string[];
  /** Secret name → its ARN (Secrets Manager appends "-" and six characters). */
  secretArn(name: string): string;
  readonly sandbox: boolean;
}

const str = (v: unknown): string => (typeof v === "string" ? v : String(v ?? ""));

const PROFILE = /^(us|eu|apac|us-gov|jp|au|ca|global)\.(.+)$/;

export function iamRequests(call: ObservedCall, n: DeployedNames): IamRequest[] {
  const { partition: p, region, account } = n;
  const input = call.input as Record<string, unknown>;
  const none = {};
  switch (call.service) {
    case "DynamoDB": {
      if (call.operation === "BatchGetItem" || call.operation === "BatchWriteItem") {
        return Object.keys((input.RequestItems as object) ?? {}).map((t) => ({
          action: `dynamodb:${call.operation}`,
          resource: n.tableArn(t),
          context: none,
        }));
      }
      const table = n.tableArn(str(input.TableName));
      const index = input.IndexName ? `${table}/index/${str(input.IndexName)}` : table;
      return [{ action: `dynamodb:${call.operation}`, resource: index, context: none }];
    }
    case "S3": {
      const bucket = n.bucket(str(input.Bucket));
      const object = `arn:${p}:s3:::${bucket}/${str(input.Key)}`;
      const listAsPrefix = (prefix: string): IamRequest => ({
        action: "s3:ListBucket",
        resource: `arn:${p}:s3:::${bucket}`,
        context: { "s3:prefix": prefix },
      });
      switch (call.operation) {
        case "GetObject":
        case "HeadObject": {
          const read = { action: "s3:GetObject", resource: object, context: none };
          const missing = call.error === "NoSuchKey" || call.error === "NotFound";
          return missing ? [read, listAsPrefix(str(input.Key))] : [read];
        }
        case "PutObject":
          return [{ action: "s3:PutObject", resource: object, context: none }];
        case "DeleteObject":
          return [{ action: "s3:DeleteObject", resource: object, context: none }];
        case "ListObjectsV2":
          return [listAsPrefix(str(input.Prefix))];
      }
      break;
    }
    case "SQS": {
      const queue = n.queueArn(str(input.QueueUrl));
      const action = {
        SendMessage: "sqs:SendMessage",
        SendMessageBatch: "sqs:SendMessage",
        ReceiveMessage: "sqs:ReceiveMessage",
        DeleteMessage: "sqs:DeleteMessage",
        DeleteMessageBatch: "sqs:DeleteMessage",
        ChangeMessageVisibility: "sqs:ChangeMessageVisibility",
        ChangeMessageVisibilityBatch: "sqs:ChangeMessageVisibility",
        GetQueueAttributes: "sqs:GetQueueAttributes",
      }[call.operation];
      if (action) return [{ action, resource: queue, context: none }];
      break;
    }
    case "SESv2": {
      if (call.operation !== "SendEmail") break;
      const content = (input.Content ?? {}) as Record<string, unknown>;
      const action = content.Raw ? "ses:SendRawEmail" : "ses:SendEmail";
      const from = str(input.FromEmailAddress);
      const dest = (input.Destination ?? {}) as Record<string, string[] | undefined>;
      const recipients = [
        ...(dest.ToAddresses ?? []),
        ...(dest.CcAddresses ?? []),
        ...(dest.BccAddresses ?? []),
      ];
      const context = { "ses:FromAddress": from, "ses:Recipients": recipients, "ses:ApiVersion": "2" };
      const identity = (id: string) => `arn:${p}:ses:${region}:${account}:identity/${id}`;
      const out: IamRequest[] = [{ action, resource: identity(domainOf(from)), context }];
      const set = str(input.ConfigurationSetName) || n.configurationSet;
      if (set)
        out.push({ action, resource: `arn:${p}:ses:${region}:${account}:configuration-set/${set}`, context });
      if (n.sandbox) for (const r of recipients) out.push({ action, resource: identity(r), context });
      return out;
    }
    case "BedrockRuntime": {
      const action =
        call.operation === "ConverseStream" || call.operation === "InvokeModelWithResponseStream"
          ? "bedrock:InvokeModelWithResponseStream"
          : "bedrock:InvokeModel";
      const id = str(input.modelId);
      if (id.startsWith("arn:")) return [{ action, resource: id, context: none }];
      const profile = PROFILE.exec(id);
      if (!profile)
        return [{ action, resource: `arn:${p}:bedrock:${region}::foundation-model/${id}`, context: none }];
      return [
        { action, resource: `arn:${p}:bedrock:${region}:${account}:inference-profile/${id}`, context: none },
        ...n.profileRegions(profile[1] as string).map((r) => ({
          action,
          resource: `arn:${p}:bedrock:${r}::foundation-model/${profile[2]}`,
          context: none,
        })),
      ];
    }
    case "SecretsManager": {
      // Each operation is its own action (Secrets Manager's actions table), on the secret's ARN; CreateSecret
      // names the secret by `Name` (the ARN it will have), the others by `SecretId`.
      const id = str(input.SecretId ?? input.Name);
      const arn = id.startsWith("arn:") ? id : n.secretArn(id);
      return [{ action: `secretsmanager:${call.operation}`, resource: arn, context: none }];
    }
    case "SSM": {
      const name = str(input.Name).replace(/^\//, "");
      return [
        {
          action: "ssm:GetParameter",
          resource: `arn:${p}:ssm:${region}:${account}:parameter/${name}`,
          context: none,
        },
      ];
    }
  }
  throw new Error(
    `no IAM mapping for ${call.service}:${call.operation}; add it (with AWS's rule) before using it`,
  );
}

function domainOf(address: string): string {
  const m = /<([^>]+)>\s*$/.exec(address);
  const a = m ? (m[1] as string) : address;
  return a.slice(a.lastIndexOf("@") + 1).toLowerCase();
}
