import { unreachable } from "./unreachable.ts";

/**
 * @smithy/core/event-streams as the verify bundle needs it: nothing but the config resolver. The S3 client wires an
 * event-stream marshaller into every client (for SelectObjectContent, the one S3 operation that streams events)
 * and the protocols import the event-stream serde on the first event-stream member they meet; verify's S3 calls
 * are GetObject and PutObject (shared/store/blob-store.ts), its SQS and DynamoDB calls have no event streams
 * either, so no request or response of verify's reaches this code. The module is ~16 KB of the verify bundle.
 *
 * `resolveEventStreamSerdeConfig` is the real one (it calls the provider once, at client construction); the
 * marshaller it gets, and the serde the protocols would load, throw an error naming this stub if ever used.
 */

const WHY = "verify's S3, SQS and DynamoDB operations have no event-stream members";

export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (i: T) => unknown }>(
  input: T,
) => Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });

export const eventStreamSerdeProvider = () => ({
  serialize: () => unreachable("@smithy/core/event-streams marshaller.serialize", WHY),
  deserialize: () => unreachable("@smithy/core/event-streams marshaller.deserialize", WHY),
});

export class EventStreamSerde {
  constructor() {
    unreachable("@smithy/core/event-streams EventStreamSerde", WHY);
  }
}
