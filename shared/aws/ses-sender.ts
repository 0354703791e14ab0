import { SESv2Client, SESv2ServiceException, SendEmailCommand } from "@aws-sdk/client-sesv2";
import type { Resources } from "../config/index.ts";
import { PosternError } from "../errors.ts";
import type { SesOutcome, SesPort, SesSendInput } from "../outbound/ports.ts";
import { type CallObserver, observeCalls } from "./observe.ts";

/**
 * SES errors that mean "not now" rather than "never": the request goes back to `claimed` and the queue
 * redelivers it (or, after maxReceiveCount, the DLQ holds it for a redrive once the account is unpaused).
 */
const RETRYABLE = new Set(["TooManyRequestsException", "LimitExceededException", "SendingPausedException"]);

/**
 * Bounded so a hung connection ends in our own `unknown` marking rather than a Lambda timeout; the outbound
 * function's timeout is sized from it (infra/postern-stack.ts), so a whole batch of slow sends still fits.
 */
export const SES_SEND_TIMEOUT_MS = 30_000;

/**
 * An SESv2 client for sending only, with SDK retries OFF. The SDK's standard retry mode re-sends on timeouts and
 * 5xx; for SendEmail a lost response followed by a retry is a second mail. One attempt, and the state machine
 * decides what a failure means.
 */
export function makeSendingSesClient(resources: Resources, observe?: CallObserver): SESv2Client {
  const endpoint = resources.endpoints?.ses;
  return observeCalls(
    new SESv2Client({
      region: resources.region,
      maxAttempts: 1,
      ...(endpoint ? { endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
    }),
    observe,
  );
}

/**
 * SESv2 SendEmail with raw content. An error SES answered with (a 4xx service exception) means it did not take
 * the message; anything else (5xx, timeout, network) is rethrown untouched: the caller treats it as unknown.
 */
export function sesSender(client: SESv2Client): SesPort {
  return {
    async send(input: SesSendInput): Promise<SesOutcome> {
      try {
        const r = await client.send(
          new SendEmailCommand({
            FromEmailAddress: input.from,
            // Bcc lives only here: it is not in the raw headers (RFC 5322 §3.6.3 permits either; hiding is the point).
            Destination: {
              ToAddresses: [...input.to],
              CcAddresses: [...input.cc],
              BccAddresses: [...input.bcc],
            },
            Content: { Raw: { Data: input.raw } },
            ...(input.configurationSet ? { ConfigurationSetName: input.configurationSet } : {}),
          }),
          { requestTimeout: SES_SEND_TIMEOUT_MS },
        );
        if (!r.MessageId)
          throw new PosternError("dependency-failed", "SES accepted the message but returned no MessageId");
        return { kind: "accepted", messageId: r.MessageId };
      } catch (err) {
        if (err instanceof SESv2ServiceException && err.$fault === "client") {
          return {
            kind: "rejected",
            retryable: RETRYABLE.has(err.name),
            code: err.name,
            ...(err.message ? { message: err.message } : {}),
          };
        }
        throw err;
      }
    },
  };
}
