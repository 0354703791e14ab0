import { beforeAll, describe, expect, it } from "vitest";
import { processOutboundRequest } from "../../../shared/outbound/process.ts";
import { signedMail } from "../../fakes/builders.ts";
import { recordingEventSink } from "../../fakes/events.ts";
import { verifyWorld } from "../../helpers/verify-world.ts";
import { replyRequest, world } from "../outbound/fakes.ts";

// A function can be killed at any instruction (a timeout, an out-of-memory, a host gone). Killed between recording
// its work and emitting the event that reports it, it is redelivered, finds the work recorded and would stop: the
// event would be lost. So each emitter emits before it records the work as done; the redelivery emits again under
// the same webhook-id, which is what at-least-once with an idempotency key means (docs/events.md).

let resolver: Awaited<ReturnType<typeof signedMail>>["resolver"];
beforeAll(async () => {
  ({ resolver } = await signedMail({}, "example.com"));
});

describe("an emitter killed at its emission point emits again on redelivery", () => {
  it("verify: the redelivered notification is processed again, not skipped as done, and mail.accepted is emitted", async () => {
    const w = verifyWorld({ resolver });
    const sink = recordingEventSink({ dieFirst: true });
    const deps = { ...w.deps, webhooks: sink };
    const raw = (await signedMail({ body: "Where is my order?" }, "example.com")).raw;
    const event = { sesMessageId: "ses-crash" };
    await expect(w.receive(raw, event, deps)).rejects.toThrow("killed");
    const [again] = await w.receive(raw, event, deps);
    expect(again).toMatchObject({ verdict: "accept", status: "processed" });
    expect(sink.emitted.map((e) => e.type)).toEqual(["mail.accepted"]);
    // One run for the mail, whatever the redelivery: the ids are derived from the SES message.
    expect(w.runs.rows.size).toBe(1);
    expect(await w.inbound.get("ses-crash", again?.recipient ?? "")).toMatchObject({ status: "done" });
  });

  it("outbound: the redelivered request finishes the send (no second SES call) and send.delivered is emitted", async () => {
    const sink = recordingEventSink({ dieFirst: true });
    const w = world({ webhooks: sink });
    await expect(processOutboundRequest(replyRequest(), w.deps)).rejects.toThrow("killed");
    const again = await processOutboundRequest(replyRequest(), w.deps);
    expect(again).toMatchObject({ status: "done" });
    expect(w.ses.calls).toHaveLength(1);
    // The key is the request id, so the second emission has the webhook-id the first would have had.
    expect(sink.emitted.map((e) => [e.type, e.key])).toEqual([["send.delivered", replyRequest().requestId]]);
  });
});
