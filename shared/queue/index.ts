// Front door of shared/queue: SQS. Outside this folder, import this file only (docs/architecture.md).

export { SqsQueue } from "./sqs-queue.ts";
