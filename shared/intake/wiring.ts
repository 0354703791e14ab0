import type { DNSResolver } from "mailauth";
import { STATE_KEYS } from "../config/index.ts";
import { agentStepPayloadSchema } from "../payloads/index.ts";
import { PlanStore, type Platform } from "../store/index.ts";
import { webhookSinkFor } from "../webhooks/index.ts";
import type { VerifyDeps } from "./process.ts";

/** Wire the verify core to real adapters: the same function in Lambda (from env) and in the local stack. */
export function verifyDeps(platform: Platform, parts: { readonly resolver: DNSResolver }): VerifyDeps {
  const { resources, logger, clients, stores } = platform;
  const plans = new PlanStore({ dynamo: clients.dynamo, tables: resources.tables, state: stores.state });
  return {
    config: platform.config,
    loadAdmin: () => stores.admin.snapshot(),
    resolver: parts.resolver,
    now: platform.now,
    inbound: stores.inbound,
    blobs: stores.blobs,
    stores,
    // Parsed with the consumer's own schema: a message agent-step would refuse is never sent.
    enqueueStep: async (m) =>
      void (await stores.queue.send(resources.queues.agentStep, agentStepPayloadSchema.parse(m))),
    enqueueOutbound: async (r) => void (await stores.queue.send(resources.queues.outbound, r)),
    async claimSignedMessage(agent, key, sesMessageId) {
      // No expiry: a signed message stays replayable for as long as its key is published.
      const claim = await stores.state.putIfAbsent(STATE_KEYS.signed(agent), key, { sesMessageId });
      return claim.ok || claim.existing?.sesMessageId === sesMessageId ? "first" : "replay";
    },
    planAgent: async (code) => (await plans.runForCode(code))?.agent ?? null,
    logger,
    webhooks: webhookSinkFor(platform),
  };
}
