import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { LOCAL_CREDENTIALS, makeDynamoClient } from "./dynamo-client.ts";
import { type CallObserver, observeCalls } from "./observe.ts";

/**
 * The SDK clients the stores need, built once at module scope by a handler or the CLI. SES is not among them: only
 * the CLI and the local stack want a general SES client (shared/aws/ses-client.ts).
 */
export interface AwsClients {
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly dynamo: DynamoDBDocumentClient;
}

/** `observe` (tests, the local stack, benchmarks) sees every command these clients send; production passes none. */
export function makeClients(resources: Resources, observe?: CallObserver): AwsClients {
  const ep = resources.endpoints;
  const base = { region: resources.region, ...(ep ? { credentials: LOCAL_CREDENTIALS } : {}) };
  return {
    // fauxqs serves S3 path-style only; its queue URLs name a host that does not resolve, so the SQS client
    // needs the explicit endpoint too (DESIGN.md §5).
    s3: observeCalls(
      new S3Client({ ...base, ...(ep?.s3 ? { endpoint: ep.s3, forcePathStyle: true } : {}) }),
      observe,
    ),
    sqs: observeCalls(new SQSClient({ ...base, ...(ep?.sqs ? { endpoint: ep.sqs } : {}) }), observe),
    dynamo: makeDynamoClient(resources, observe),
  };
}
