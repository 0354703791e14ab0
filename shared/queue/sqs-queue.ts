import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { PosternError } from "../errors.ts";

export interface SqsQueueDeps {
  readonly sqs: SQSClient;
}

export interface SendOptions {
  /** 0-900 seconds (SQS limit). */
  readonly delaySeconds?: number;
}

/** The one way Postern hands work to the next step: a JSON body on an SQS queue (every queue has a DLQ). */
export class SqsQueue {
  readonly #sqs: SQSClient;

  constructor(deps: SqsQueueDeps) {
    this.#sqs = deps.sqs;
  }

  /** → the SQS message id. */
  async send(queueUrl: string, body: object, opts: SendOptions = {}): Promise<string> {
    const delay = opts.delaySeconds;
    if (delay !== undefined && !(Number.isInteger(delay) && delay >= 0 && delay <= 900)) {
      throw new PosternError("invalid-argument", `delaySeconds must be an integer 0-900, got ${delay}`);
    }
    const r = await this.#sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(body),
        ...(delay !== undefined ? { DelaySeconds: delay } : {}),
      }),
    );
    return r.MessageId ?? "";
  }
}
