export { SqsQueue } from "./sqs-queue.ts";
