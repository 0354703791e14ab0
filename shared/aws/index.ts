export { type AwsClients, makeClients } from "./clients.ts";
export { makeDynamoClient } from "./dynamo-client.ts";
export type { CallObserver } from "./observe.ts";
export { makeSesClient } from "./ses-client.ts";
export { makeSendingSesClient, SES_SEND_TIMEOUT_MS, sesSender } from "./ses-sender.ts";
