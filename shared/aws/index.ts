// Front door of shared/aws: the AWS SDK clients and the SES sender. Outside this folder, import this file
// only (docs/architecture.md).

export { type AwsClients, makeClients } from "./clients.ts";
export { makeDynamoClient } from "./dynamo-client.ts";
export type { CallObserver } from "./observe.ts";
export { makeSesClient } from "./ses-client.ts";
export { makeSendingSesClient, SES_SEND_TIMEOUT_MS, sesSender } from "./ses-sender.ts";
