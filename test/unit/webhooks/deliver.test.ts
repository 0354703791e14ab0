import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { WebhookItem } from "../../../shared/admin/webhook-item.ts";
import { toEvent, type WebhookEvent } from "../../../shared/ports/index.ts";
import { eventId } from "../../../shared/ports/webhooks.ts";
import { deliverEvent } from "../../../shared/webhooks/deliver.ts";
import { DEFAULT_POLICY } from "../../../shared/webhooks/index.ts";
import { maxAttempts } from "../../../shared/webhooks/policy.ts";
import type { Post } from "../../../shared/webhooks/ports.ts";
import { rotated } from "../../../shared/webhooks/secrets.ts";
import { newSecret } from "../../../shared/webhooks/signing.ts";
import { fakeDeliverDeps } from "../../fakes/events.ts";

const endpoint = (over: Partial<WebhookItem> = {}): WebhookItem => ({
  id: "crm",
  url: "https://hooks.example.com/postern",
  events: ["mail.accepted", "run.failed"],
  includeMailText: false,
  enabled: true,
  ...over,
});

const T0 = new Date("2026-12-01T10:00:00.000Z");
const accepted = (key = "a@x#m1"): WebhookEvent =>
  toEvent(
    {
      type: "mail.accepted",
      key,
      data: { agent: "helpdesk@agents.example.com", messageId: "m1" },
      mail: { subject: "Refund for order A-1001", text: "Please refund order A-1001, it arrived broken." },
    },
    T0,
  );

interface Call {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}
function recordingPost(status: number | (() => number)): Post & { readonly calls: Call[] } {
  const calls: Call[] = [];
  const post: Post = async (url, headers, body) => {
    calls.push({ url, headers, body });
    return { ok: true, status: typeof status === "number" ? status : status() };
  };
  return Object.assign(post, { calls });
}

describe("event ids (the idempotency key)", () => {
  it("are derived from the type and what happened, so a re-emission carries the same webhook-id", () => {
    expect(eventId("mail.accepted", "a#1")).toBe(eventId("mail.accepted", "a#1"));
    expect(eventId("mail.accepted", "a#1")).not.toBe(eventId("mail.refused", "a#1"));
    expect(eventId("mail.accepted", "a#1")).toMatch(/^evt_[0-9a-f]{32}$/);
  });
});

describe("deliverEvent", () => {
  it("signs each delivery so the reference library verifies it, and by the spec's formula by hand", async () => {
    const post = recordingPost(204);
    const f = fakeDeliverDeps({ endpoints: [endpoint()], post, now: () => T0 });
    const secret = newSecret();
    await f.secrets.write("crm", { current: secret });
    const out = await deliverEvent("crm", accepted(), f.deps);
    expect(out).toEqual({ kind: "delivered", attempt: 1 });
    const [call] = post.calls;
    if (!call) throw new Error("no delivery");
    // The reference implementation, with its timestamp tolerance checked against the delivery's own time.
    const realNow = Date.now;
    Date.now = () => T0.getTime();
    try {
      expect(new Webhook(secret).verify(call.body, { ...call.headers })).toEqual(JSON.parse(call.body));
    } finally {
      Date.now = realNow;
    }
    // By hand: HMAC-SHA256 over `${id}.${timestamp}.${body}`, keyed by the base64 after `whsec_`, as `v1,<base64>`.
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const mac = createHmac("sha256", key)
      .update(`${call.headers["webhook-id"]}.${call.headers["webhook-timestamp"]}.${call.body}`)
      .digest("base64");
    expect(call.headers["webhook-signature"]).toBe(`v1,${mac}`);
    expect(call.headers["webhook-id"]).toBe(accepted().id);
    expect(call.headers["webhook-timestamp"]).toBe(String(T0.getTime() / 1000));
  });

  it("signs with both secrets during a rotation's overlap, and only the new one after it", async () => {
    let now = T0;
    const post = recordingPost(200);
    const f = fakeDeliverDeps({ endpoints: [endpoint()], post, now: () => now });
    const old = newSecret();
    const fresh = newSecret();
    await f.secrets.write("crm", rotated({ current: old }, fresh, T0, 3600));
    await deliverEvent("crm", accepted("k1"), f.deps);
    now = new Date(T0.getTime() + 3601_000);
    await deliverEvent("crm", accepted("k2"), f.deps);
    const [during, after] = post.calls;
    if (!during || !after) throw new Error("two deliveries expected");
    expect(during.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    const realNow = Date.now;
    try {
      Date.now = () => T0.getTime();
      expect(() => new Webhook(old).verify(during.body, { ...during.headers })).not.toThrow();
      expect(() => new Webhook(fresh).verify(during.body, { ...during.headers })).not.toThrow();
      Date.now = () => now.getTime();
      expect(() => new Webhook(fresh).verify(after.body, { ...after.headers })).not.toThrow();
      expect(() => new Webhook(old).verify(after.body, { ...after.headers })).toThrow();
    } finally {
      Date.now = realNow;
    }
  });

  it("sends no mail text unless the endpoint opted in, and bounds the payload when it did", async () => {
    const post = recordingPost(200);
    const f = fakeDeliverDeps({
      endpoints: [endpoint(), endpoint({ id: "archive", includeMailText: true })],
      post,
      now: () => T0,
    });
    await f.secrets.write("crm", { current: newSecret() });
    await f.secrets.write("archive", { current: newSecret() });
    const huge = toEvent(
      {
        type: "mail.accepted",
        key: "big",
        data: { agent: "a@x.com" },
        mail: { subject: "S".repeat(5000), text: "é\u0001".repeat(200_000) },
      },
      T0,
    );
    await deliverEvent("crm", accepted(), f.deps);
    await deliverEvent("archive", accepted(), f.deps);
    await deliverEvent("archive", huge, f.deps);
    const [plain, opted, big] = post.calls.map((c) => c.body);
    expect(plain).not.toContain("Refund");
    expect(JSON.parse(plain ?? "").data.mail).toBeUndefined();
    expect(JSON.parse(opted ?? "").data.mail.text).toContain("arrived broken");
    expect(Buffer.byteLength(big ?? "")).toBeLessThanOrEqual(16 * 1024);
    expect(JSON.parse(big ?? "").data.mail.text.endsWith("…")).toBe(true);
  });

  it("retries on the schedule, then dead-letters and reports the failure (G19)", async () => {
    let now = T0;
    const post = recordingPost(503);
    const f = fakeDeliverDeps({
      endpoints: [endpoint()],
      post,
      now: () => now,
      // Keep the breaker out of this test: it has its own.
      policy: { breakerThreshold: 100 },
    });
    await f.secrets.write("crm", { current: newSecret() });
    const delays: number[] = [];
    let out = await deliverEvent("crm", accepted(), f.deps);
    for (let guard = 0; guard < 20 && out.kind === "retry"; guard++) {
      delays.push(out.delaySeconds);
      now = new Date(now.getTime() + out.delaySeconds * 1000);
      out = await deliverEvent("crm", accepted(), f.deps);
    }
    expect(delays).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    expect(out).toEqual({ kind: "dead-letter", attempt: maxAttempts(DEFAULT_POLICY), reason: "http-status" });
    expect(f.failures.reports.map((r) => [r.class, r.reason])).toEqual([
      ["webhook-undelivered", "retries-exhausted"],
    ]);
    expect(f.entries.get("crm")?.map((e) => e.outcome)).toEqual([
      ...Array(7).fill("failed"),
      "dead-lettered",
    ]);
  });

  it("two deliveries that fail together past the threshold report circuit-opened once", async () => {
    const f = fakeDeliverDeps({
      endpoints: [endpoint()],
      post: recordingPost(() => 500),
      now: () => T0,
      policy: { breakerThreshold: 2, breakerCooldownSeconds: 60 },
    });
    await f.secrets.write("crm", { current: newSecret() });
    await deliverEvent("crm", accepted("e1"), f.deps);
    // e2 and e3 read the breaker at one failure before either writes, and both cross the threshold of two.
    await Promise.all([
      deliverEvent("crm", accepted("e2"), f.deps),
      deliverEvent("crm", accepted("e3"), f.deps),
    ]);
    expect(f.breakers.get("crm")?.failures).toBe(3);
    expect(f.failures.reports.map((r) => r.reason)).toEqual(["circuit-opened"]);
  });

  it("opens the breaker after consecutive failures: deliveries wait without spending an attempt, then one probe", async () => {
    let now = T0;
    let status = 500;
    const post = recordingPost(() => status);
    const f = fakeDeliverDeps({
      endpoints: [endpoint()],
      post,
      now: () => now,
      policy: { breakerThreshold: 3, breakerCooldownSeconds: 60 },
    });
    await f.secrets.write("crm", { current: newSecret() });
    for (const k of ["e1", "e2", "e3"]) await deliverEvent("crm", accepted(k), f.deps);
    expect(f.failures.reports.map((r) => r.reason)).toEqual(["circuit-opened"]);
    const held = await deliverEvent("crm", accepted("e4"), f.deps);
    expect(held).toEqual({ kind: "deferred", delaySeconds: 60 });
    expect(post.calls).toHaveLength(3);
    now = new Date(T0.getTime() + 61_000);
    status = 200;
    expect(await deliverEvent("crm", accepted("e4"), f.deps)).toEqual({ kind: "delivered", attempt: 1 });
    expect(f.breakers.get("crm")).toEqual({ failures: 0 });
  });

  it("after the cool-down exactly one delivery probes; one that wakes meanwhile keeps waiting", async () => {
    const now = new Date(T0.getTime() + 120_000);
    const stale = { failures: 3, openUntil: new Date(T0.getTime() + 60_000).toISOString() };
    let during: unknown;
    let posts = 0;
    const f = fakeDeliverDeps({
      endpoints: [endpoint()],
      // While the probe is in flight, another delivery of the same endpoint wakes up, having read the breaker as
      // the probe did (both see the cool-down over): only the conditional claim tells them apart.
      post: async () => {
        if (++posts === 1) during = await deliverEvent("crm", accepted("e6"), f.deps);
        return { ok: true, status: 200 };
      },
      now: () => now,
      policy: { breakerThreshold: 3, breakerCooldownSeconds: 60 },
    });
    await f.secrets.write("crm", { current: newSecret() });
    f.breakers.set("crm", stale);
    const deps = { ...f.deps, breaker: { ...f.deps.breaker, get: async () => stale } };
    f.deps = deps;
    expect(await deliverEvent("crm", accepted("e5"), deps)).toEqual({ kind: "delivered", attempt: 1 });
    expect(posts).toBe(1);
    expect(during).toEqual({ kind: "deferred", delaySeconds: 60 });
    expect(f.breakers.get("crm")).toEqual({ failures: 0 });
  });

  it("drops deliveries to a removed, disabled or unsubscribed endpoint without calling it", async () => {
    const post = recordingPost(200);
    const f = fakeDeliverDeps({
      endpoints: [endpoint({ id: "off", enabled: false }), endpoint({ id: "other", events: ["run.failed"] })],
      post,
      now: () => T0,
    });
    expect(await deliverEvent("gone", accepted(), f.deps)).toEqual({
      kind: "dropped",
      reason: "endpoint-gone",
    });
    expect(await deliverEvent("off", accepted(), f.deps)).toEqual({
      kind: "dropped",
      reason: "endpoint-disabled",
    });
    expect(await deliverEvent("other", accepted(), f.deps)).toEqual({
      kind: "dropped",
      reason: "not-subscribed",
    });
    expect(post.calls).toHaveLength(0);
  });

  it("fails an attempt, without a request, when the endpoint has no secret", async () => {
    const post = recordingPost(200);
    const f = fakeDeliverDeps({ endpoints: [endpoint()], post, now: () => T0 });
    const out = await deliverEvent("crm", accepted(), f.deps);
    expect(out).toMatchObject({ kind: "retry", reason: "secret-missing" });
    expect(post.calls).toHaveLength(0);
  });
});
