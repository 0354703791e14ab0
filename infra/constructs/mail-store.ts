import { Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
  StorageClass,
} from "aws-cdk-lib/aws-s3";
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from "aws-cdk-lib/cx-api";
import { Construct } from "constructs";
import { PREFIXES } from "../../shared/config/index.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";

export type MailPrefix = keyof typeof PREFIXES;

export interface MailStoreProps {
  /**
   * Days after which non-current versions (overwritten or deleted objects) expire. Current objects, raw inbound
   * mail included, are never expired by the stack: refused mail is evidence (DESIGN.md §1).
   * @default 90
   */
  readonly noncurrentVersionDays?: number;
  /** Days after which current `inbound/` evidence moves to infrequent access. @default 30 */
  readonly evidenceInfrequentAccessDays?: number;
  /** @default RemovalPolicy.RETAIN (mail is evidence; `cdk destroy` leaves it) */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The one mail bucket: raw inbound mail, bodies, files, transcripts, raw outbound mail, each under its prefix
 * (shared/config/tables.ts PREFIXES). Encrypted, versioned, public access blocked, TLS only, access-logged.
 * Least privilege is per prefix: `grantRead(fn, "inbound")` is the only way to reach raw mail.
 */
export class MailStore extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, props: MailStoreProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    // S3 delivers server access logs under a bucket policy (logging.s3.amazonaws.com, only from the mail bucket
    // in this account), not the legacy LogDeliveryWrite ACL (cfn-lint W3045): AWS's recommendation, and it lets
    // the log bucket disable ACLs. Set here, not only in cdk.json, so the construct means this in any app.
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    this.accessLogs = new Bucket(this, "AccessLogs", {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy,
    });
    acknowledgeNag(
      this.accessLogs,
      "AwsSolutions-S1",
      "This is the access-log bucket of the mail bucket; logging it into itself would loop.",
    );
    this.bucket = new Bucket(this, "Mail", {
      // SSE-S3: SES's S3 action writes with it without a key policy; SSE-KMS would need SES on the key and a
      // kms:Decrypt grant on every reader for no gain in who can read (the bucket policy and IAM decide that).
      encryption: BucketEncryption.S3_MANAGED,
      versioned: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: "mail/",
      lifecycleRules: [
        { noncurrentVersionExpiration: Duration.days(props.noncurrentVersionDays ?? 90) },
        {
          prefix: PREFIXES.inbound,
          transitions: [
            {
              storageClass: StorageClass.INFREQUENT_ACCESS,
              transitionAfter: Duration.days(props.evidenceInfrequentAccessDays ?? 30),
            },
          ],
        },
        { abortIncompleteMultipartUploadAfter: Duration.days(7) },
      ],
      removalPolicy,
    });
  }

  /** Objects under one prefix, as an IAM resource. */
  objectsArn(prefix: MailPrefix): string {
    return this.bucket.arnForObjects(`${PREFIXES[prefix]}*`);
  }

  grant(grantee: IGrantable, actions: readonly string[], prefixes: readonly MailPrefix[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...actions], resources: prefixes.map((p) => this.objectsArn(p)) }),
    );
    if (!Construct.isConstruct(grantee.grantPrincipal)) return;
    const stack = Stack.of(this);
    const bucketId = stack.resolve(stack.getLogicalId(this.bucket.node.defaultChild as CfnBucket)) as string;
    for (const p of prefixes) {
      acknowledgeNag(
        grantee.grantPrincipal,
        `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${PREFIXES[p]}*]`,
        `Object keys under ${PREFIXES[p]} are generated per message/run; the grant is scoped to that one prefix (least privilege per prefix, see infra/iam/actions.ts).`,
      );
    }
  }

  grantRead(grantee: IGrantable, ...prefixes: MailPrefix[]): void {
    this.grant(grantee, ACTIONS.objectRead, prefixes);
  }

  grantWrite(grantee: IGrantable, ...prefixes: MailPrefix[]): void {
    this.grant(grantee, ACTIONS.objectWrite, prefixes);
  }
}
