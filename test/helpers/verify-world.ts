import type { DNSResolver } from "mailauth";
import type { AdminSnapshot } from "../../shared/admin/schema.ts";
import { type InboundSummary, processInbound, type VerifyDeps } from "../../shared/intake/process.ts";
import { agentStepPayloadSchema } from "../../shared/payloads/agent-step.ts";
import type { OutboundRequest } from "../../shared/payloads/outbound.ts";
import { noWebhooks } from "../../shared/ports/index.ts";
import { memoryBlobs } from "../fakes/blobs.ts";
import { admin as adminOf, config as configOf, inboundEvent, NOW } from "../fakes/builders.ts";
import { memoryInbound } from "../fakes/inbound.ts";
import { memoryMessages } from "../fakes/messages.ts";
import { memoryPlanStore } from "../fakes/plan-store.ts";
import { recordingQueue } from "../fakes/queue.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { memoryRunTable } from "../fakes/run-table.ts";
import { memoryState } from "../fakes/state.ts";
import { memoryThreads } from "../fakes/threads.ts";
import { QUEUES } from "./step-world.ts";

/**
 * The verify function over in-memory fakes, assembled as shared/intake/wiring.ts assembles it. VerifyDeps names
 * store classes (InboundRepo, BlobStore, MessageRepo, ThreadRepo, RunRepo), whose #private fields no object
 * literal can have: the fakes implement the methods verify calls, and the casts below say so once.
 */
export function verifyWorld(opts: {
  resolver: DNSResolver;
  admin?: Partial<AdminSnapshot>;
  config?: Record<string, unknown>;
}) {
  const clock = { now: new Date(NOW) };
  const now = () => clock.now;
  const state = memoryState({ now });
  const inbound = memoryInbound({ now });
  const blobs = memoryBlobs();
  const messages = memoryMessages();
  let threadSeq = 0;
  const threads = memoryThreads({ state, newId: () => `thread-${++threadSeq}` });
  const runs = memoryRunTable([], { now });
  const plans = memoryPlanStore(state);
  const queue = recordingQueue();
  const logger = recordingLogger();
  const snapshot = { admin: adminOf(opts.admin) };
  const deps: VerifyDeps = {
    config: configOf(opts.config),
    webhooks: noWebhooks,
    loadAdmin: async () => snapshot.admin,
    resolver: opts.resolver,
    now,
    inbound: inbound,
    blobs: blobs,
    stores: {
      messages: messages,
      threads: threads,
      runs,
      blobs: blobs,
    },
    enqueueStep: async (m) => void (await queue.send(QUEUES.agentStep, agentStepPayloadSchema.parse(m))),
    enqueueOutbound: async (r: OutboundRequest) => void (await queue.send(QUEUES.outbound, r)),
    async claimSignedMessage(agent, key, sesMessageId) {
      const claim = await state.putIfAbsent(`signed#${agent}`, key, { sesMessageId });
      return claim.ok || claim.existing?.sesMessageId === sesMessageId ? "first" : "replay";
    },
    planAgent: async (code) => (await plans.runForCode(code))?.agent ?? null,
    logger,
  };
  let n = 0;
  return {
    deps,
    clock,
    snapshot,
    state,
    inbound,
    blobs,
    messages,
    threads,
    runs,
    plans,
    queue,
    logger,
    /** SES stores `raw` and notifies verify: → verify's summary per recipient. */
    async receive(
      raw: Buffer,
      extra: Parameters<typeof inboundEvent>[0] = {},
      /** The deps to process with, when a test replaces one (an event sink). */
      using: VerifyDeps = deps,
    ): Promise<InboundSummary[]> {
      const event = inboundEvent({
        sesMessageId: `ses-${++n}`,
        receivedAt: clock.now.toISOString(),
        ...extra,
      });
      await blobs.put(event.objectKey, raw);
      return processInbound(event, using);
    },
  };
}
