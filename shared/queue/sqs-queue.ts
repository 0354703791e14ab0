import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { PosternError } from "../errors.ts";

export interface SqsQueueDeps {
  /** Only `send` is used, so a function's platform client, the CLI's and a test's recording fake all fit. */
  readonly sqs: Pick<SQSClient, "send">;
}

export interface SendOptions {
  /** 0-900 seconds (SQS limit). */
  readonly delaySeconds?: number;
}

/**
 * The one way Postern hands work to the next step: a JSON body on an SQS queue (every queue has a DLQ). A test
 * (test/unit/queue/one-enqueue.test.ts) holds every other shipped file to it, so a send's checks and encoding live
 * in one place.
 */
export class SqsQueue {
  readonly #sqs: Pick<SQSClient, "send">;

  constructor(deps: SqsQueueDeps) {
    this.#sqs = deps.sqs;
  }

  /** → the SQS message id. */
  async send(queueUrl: string, body: object, opts: SendOptions = {}): Promise<string> {
    return this.#send(queueUrl, JSON.stringify(body), opts.delaySeconds);
  }

  /**
   * Moves a received body to another queue byte for byte (a dead-letter queue): re-encoding a body that did not
   * parse would lose what the operator needs to see.
   */
  async forward(queueUrl: string, receivedBody: string): Promise<string> {
    return this.#send(queueUrl, receivedBody, undefined);
  }

  async #send(queueUrl: string, body: string, delay: number | undefined): Promise<string> {
    if (delay !== undefined && !(Number.isInteger(delay) && delay >= 0 && delay <= 900)) {
      throw new PosternError("invalid-argument", `delaySeconds must be an integer 0-900, got ${delay}`);
    }
    const r = await this.#sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        ...(delay !== undefined ? { DelaySeconds: delay } : {}),
      }),
    );
    return r.MessageId ?? "";
  }
}
