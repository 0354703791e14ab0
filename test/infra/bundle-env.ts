import { ENV, type Resources, tableEnvName } from "../../shared/config/resources.ts";
import { TABLE_KEYS } from "../../shared/config/tables.ts";

/**
 * The environment CDK gives a function, pointed at the local emulators: resource names as in
 * shared/config/resources.ts, and the SDK's own endpoint variables (AWS_ENDPOINT_URL_<SERVICE>) because in
 * Lambda the handlers build clients without endpoints.
 */
export function functionEnv(resources: Resources, configFile: string, zoneFile: string): NodeJS.ProcessEnv {
  const ep = resources.endpoints ?? {};
  return {
    PATH: process.env.PATH,
    [ENV.region]: resources.region,
    ...Object.fromEntries(TABLE_KEYS.map((k) => [tableEnvName(k), resources.tables[k]])),
    [ENV.bucket]: resources.bucket,
    [ENV.verifyQueue]: resources.queues.verify,
    [ENV.agentStepQueue]: resources.queues.agentStep,
    [ENV.outboundQueue]: resources.queues.outbound,
    ...(resources.queues.events ? { [ENV.eventsQueue]: resources.queues.events } : {}),
    ...(resources.queues.eventsDeadLetter
      ? { [ENV.eventsDeadLetterQueue]: resources.queues.eventsDeadLetter }
      : {}),
    POSTERN_CONFIG_FILE: configFile,
    POSTERN_DNS_ZONE_FILE: zoneFile,
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    ...(ep.dynamodb ? { AWS_ENDPOINT_URL_DYNAMODB: ep.dynamodb } : {}),
    ...(ep.sqs ? { AWS_ENDPOINT_URL_SQS: ep.sqs } : {}),
    ...(ep.s3 ? { AWS_ENDPOINT_URL_S3: ep.s3 } : {}),
    AWS_ENDPOINT_URL_SESV2: "http://127.0.0.1:9",
    POSTERN_LOG_LEVEL: "WARN",
  };
}
