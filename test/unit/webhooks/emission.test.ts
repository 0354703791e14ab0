import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { recordSendOutcome } from "../../../shared/outbound/send-outcomes.ts";
import { FAILURE_LOG } from "../../../shared/ports/failures.ts";
import { toEvent } from "../../../shared/ports/index.ts";
import { queueWebhookSink } from "../../../shared/webhooks/emitter.ts";
import { fanOut } from "../../../shared/webhooks/fan-out.ts";
import { fileSecretStore, secretManagerStore, type WebhooksPayload } from "../../../shared/webhooks/index.ts";
import { recordingEventSink } from "../../fakes/events.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

const T0 = new Date("2026-12-01T10:00:00.000Z");
const hook = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  url: `https://${id}.example/hook`,
  events: ["mail.accepted" as const],
  includeMailText: false,
  enabled: true,
  ...over,
});

describe("fanOut", () => {
  it("one delivery per enabled, subscribed endpoint; mail text only on the opted-in endpoint's message", () => {
    const event = toEvent(
      { type: "mail.accepted", key: "k", data: { agent: "a@x.com" }, mail: { subject: "s", text: "t" } },
      T0,
    );
    const out = fanOut(event, [
      hook("plain"),
      hook("opted", { includeMailText: true }),
      hook("off", { enabled: false }),
      hook("other", { events: ["run.failed"] }),
    ]) as Extract<WebhooksPayload, { kind: "deliver" }>[];
    expect(out.map((m) => m.endpointId)).toEqual(["plain", "opted"]);
    expect(out[0]?.event.mail).toBeUndefined();
    expect(out[1]?.event.mail).toEqual({ subject: "s", text: "t" });
    expect(new Set(out.map((m) => m.event.id)).size).toBe(1);
  });
});

describe("toEvent", () => {
  it("keeps at most what a payload can carry of a huge mail, so its event still fits on the queue", () => {
    const e = toEvent(
      {
        type: "mail.accepted",
        key: "k",
        data: {},
        mail: { subject: "s".repeat(10_000), text: "x".repeat(5_000_000) },
      },
      T0,
    );
    expect(Buffer.byteLength(JSON.stringify({ kind: "event", event: e }))).toBeLessThan(64 * 1024);
    expect(e.mail?.text.length).toBe(16 * 1024);
  });
});

describe("queueWebhookSink", () => {
  it("an event the queue refuses is a logged failure (the metric's line), never a thrown error", async () => {
    const logger = recordingLogger();
    const sink = queueWebhookSink({
      send: async () => {
        throw Object.assign(new Error("boom"), { name: "QueueDoesNotExist" });
      },
      logger,
      clock: () => T0,
    });
    await expect(
      sink.emit({ type: "run.failed", key: "r1", data: { agent: "a@x.com" } }),
    ).resolves.toBeUndefined();
    const line = logger.lines.find((l) => l.message === FAILURE_LOG);
    expect(line?.extra).toMatchObject({ failureClass: "webhook-undelivered", reason: "event-not-queued" });
  });
});

describe("SES's later report of a send", () => {
  const DIR = resolve(import.meta.dirname, "../../fixtures/ses-events");
  const log = { record: async () => {} };
  it("a bounce is a send.failed event with SES's classification; a delivery delay is none", async () => {
    const sink = recordingEventSink();
    await recordSendOutcome(readFileSync(join(DIR, "bounce.json"), "utf8"), {
      log,
      logger: recordingLogger(),
      webhooks: sink,
    });
    await recordSendOutcome(readFileSync(join(DIR, "delivery-delay.json"), "utf8"), {
      log,
      logger: recordingLogger(),
      webhooks: sink,
    });
    expect(sink.emitted).toEqual([
      expect.objectContaining({
        type: "send.failed",
        data: expect.objectContaining({ reason: "bounce", detail: "Permanent/General", recipients: 1 }),
      }),
    ]);
  });
});

describe("secret stores", () => {
  it("the local secrets file is written 0600 and keeps other keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-secrets-"));
    const path = join(dir, "secrets.json");
    const store = fileSecretStore(path);
    await store.write("crm", { current: "whsec_a" });
    await store.write("erp", { current: "whsec_b" });
    await store.remove("crm");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await store.read("crm")).toBeNull();
    expect(await store.read("erp")).toEqual({ current: "whsec_b" });
  });

  it("Secrets Manager: each write sets the endpoint's secret under postern/webhooks/<id>, read back as JSON", async () => {
    const calls: string[] = [];
    const values = new Map<string, string>();
    const store = secretManagerStore(
      {
        get: async (n) => values.get(n) ?? null,
        set: async (n, v) => {
          calls.push(`set ${n}`);
          values.set(n, v);
        },
        remove: async (n) => values.delete(n),
        list: async () => [],
      },
      { ttlMs: 0 },
    );
    await store.write("crm", { current: "whsec_a" });
    await store.write("crm", { current: "whsec_b" });
    expect(calls).toEqual(["set postern/webhooks/crm", "set postern/webhooks/crm"]);
    expect(await store.read("crm")).toEqual({ current: "whsec_b" });
  });
});
