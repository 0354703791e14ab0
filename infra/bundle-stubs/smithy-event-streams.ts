import { unreachable } from "./unreachable.ts";

/**
 * @smithy/core/event-streams as the verify and outbound bundles need it: nothing but the config resolver. The S3
 * client wires an event-stream marshaller into every client (for SelectObjectContent, the one S3 operation that
 * streams events) and the protocols import the event-stream serde on the first event-stream member they meet; the
 * two functions' S3 calls are GetObject and PutObject (shared/store/blob-store.ts), their SQS, DynamoDB and (for
 * outbound) SESv2 calls have no event streams either, so no request or response of theirs reaches this code. The
 * module is ~16 KB of each bundle. Not agent-step's: its Bedrock client needs the real codec (infra/bundling.ts).
 *
 * `resolveEventStreamSerdeConfig` is the real one (it calls the provider once, at client construction); the
 * marshaller it gets, and the serde the protocols would load, throw an error naming this stub if ever used.
 */

const WHY = "the S3, SQS, DynamoDB and SESv2 operations of verify and outbound have no event-stream members";

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

// The Bedrock runtime client's event-stream handlers import these. The pipeline bundles are built with
// `"sideEffects": false` (package.json), so a module reached only through a front door's unused re-export (the
// model factory behind shared/model/index.ts, say) is parsed but never bundled: these names must resolve, and
// test/infra/verify-bundle.test.ts proves from the output which modules actually ship and reach a stub.

export const iterableToReadableStream = (): never =>
  unreachable("@smithy/core/event-streams iterableToReadableStream", WHY);

export const readableStreamToIterable = (): never =>
  unreachable("@smithy/core/event-streams readableStreamToIterable", WHY);

export class EventStreamCodec {
  constructor() {
    unreachable("@smithy/core/event-streams EventStreamCodec", WHY);
  }
}
