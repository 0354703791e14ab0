import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Resources } from "../config/index.ts";
import { type CallObserver, observeCalls } from "./observe.ts";

/** Emulators accept any credentials; fixed fake ones keep the SDK from searching the machine for real ones. */
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/**
 * The DynamoDB document client alone: what the CLI's table commands (`runs`, the admin tables) need, without
 * loading the S3 and SQS clients (~0.2 s of a command's start).
 */
export function makeDynamoClient(resources: Resources, observe?: CallObserver): DynamoDBDocumentClient {
  const ep = resources.endpoints;
  const raw = observeCalls(
    new DynamoDBClient({
      region: resources.region,
      ...(ep ? { credentials: LOCAL_CREDENTIALS } : {}),
      ...(ep?.dynamodb ? { endpoint: ep.dynamodb } : {}),
    }),
    observe,
  );
  return DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}
