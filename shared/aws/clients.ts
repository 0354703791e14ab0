import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { SESv2Client } from "@aws-sdk/client-sesv2";
import { SQSClient } from "@aws-sdk/client-sqs";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/resources.ts";
import { type CallObserver, observeCalls } from "./observe.ts";

/** The SDK clients one process needs, built once at module scope by a handler or the CLI. */
export interface AwsClients {
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly dynamo: DynamoDBDocumentClient;
  readonly ses: SESv2Client;
}

/** Emulators accept any credentials; fixed fake ones keep the SDK from searching the machine for real ones. */
const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/** `observe` (tests, the local stack, benchmarks) sees every command these clients send; production passes none. */
export function makeClients(resources: Resources, observe?: CallObserver): AwsClients {
  const ep = resources.endpoints;
  const base = { region: resources.region, ...(ep ? { credentials: LOCAL_CREDENTIALS } : {}) };
  const dynamoRaw = observeCalls(
    new DynamoDBClient({ ...base, ...(ep?.dynamodb ? { endpoint: ep.dynamodb } : {}) }),
    observe,
  );
  return {
    // fauxqs serves S3 path-style only; its queue URLs name a host that does not resolve, so the SQS client
    // needs the explicit endpoint too (DESIGN.md §5).
    s3: observeCalls(
      new S3Client({ ...base, ...(ep?.s3 ? { endpoint: ep.s3, forcePathStyle: true } : {}) }),
      observe,
    ),
    sqs: observeCalls(new SQSClient({ ...base, ...(ep?.sqs ? { endpoint: ep.sqs } : {}) }), observe),
    dynamo: DynamoDBDocumentClient.from(dynamoRaw, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
    ses: observeCalls(new SESv2Client({ ...base, ...(ep?.ses ? { endpoint: ep.ses } : {}) }), observe),
  };
}
