import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localSecretsFile } from "../../cli/local/secrets-file.ts";
import { GROUPS } from "../../console/auth/principal.ts";
import { AuditRepo } from "../../shared/store/audit-repo.ts";
import { fileSecretStore, WEBHOOK_EVENT_TYPES } from "../../shared/webhooks/index.ts";
import { type RecordingLogger, recordingLogger } from "../fakes/recording-logger.ts";
import { waitFor } from "../helpers/pipeline-stack.ts";
import {
  type Delivery,
  signedHeaders,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../helpers/webhook-receiver.ts";
import { ConsoleClient, type ConsoleStack, startConsoleStack, stopAfterAll, VIEWER } from "./harness.ts";

// Webhook endpoints registered, edited, rotated, tested and removed from the console, end to end: the test event
// goes through the events queue and the worker to a receiver on loopback, and every delivery is verified with
// `standardwebhooks` (the specification's reference implementation) using the secret the console showed once.

let s: ConsoleStack;
let log: RecordingLogger;
let receiver: WebhookReceiver;
let base = "";
let deliveries: Delivery[] = [];
let admin: ConsoleClient;
let csrf = "";

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  ({ base, deliveries } = receiver);
  log = recordingLogger();
  s = await startConsoleStack({ webhookLoopback: true, logger: log });
  admin = new ConsoleClient(s.console.url);
  await admin.signIn(s.console.link());
  csrf = await admin.csrf("/webhooks");
}, 60_000);
stopAfterAll(() => s);
afterAll(async () => {
  await receiver?.close();
});

const secrets = () => fileSecretStore(localSecretsFile(s.stack.dir));
const shownSecret = (page: string) => /<code class="secret">(whsec_[^<]+)<\/code>/.exec(page)?.[1] ?? "";
const headersOf = signedHeaders;

async function addEndpoint(id: string, extra: Record<string, string> = {}): Promise<string> {
  const r = await admin.post("/webhooks/add", {
    _csrf: csrf,
    id,
    url: `${base}/${id}`,
    allEvents: "on",
    enabled: "on",
    ...extra,
  });
  expect(r.status).toBe(200);
  // Shown once, never kept by a browser or proxy.
  expect(r.headers.get("cache-control")).toBe("no-store");
  const secret = shownSecret(await r.text());
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
  return secret;
}

/** Sends a test event from the console and waits for its delivery at the receiver. */
async function testDelivered(id: string): Promise<Delivery> {
  const seen = deliveries.length;
  const r = await admin.post(`/webhooks/${id}/test`, { _csrf: csrf });
  expect(r.status).toBe(303);
  expect(r.headers.get("location")).toBe(`/webhooks?done=test-queued#${id}`);
  return waitFor(`the test event at /${id}`, async () =>
    deliveries.slice(seen).find((d) => d.path === `/${id}` && d.body.includes("webhook.test")),
  );
}

describe("registering a webhook endpoint from the console", () => {
  it("shows the server-made secret once; a test event through the queue verifies with it (standardwebhooks)", async () => {
    const secret = await addEndpoint("crm", { description: "the CRM" });
    expect(await secrets().read("crm")).toEqual({ current: secret });
    const item = await s.stores.admin.getWebhook("crm");
    // `allEvents`: every event type there is.
    expect(item?.events.length).toBe(WEBHOOK_EVENT_TYPES.length);
    expect(item?.description).toBe("the CRM");
    const d = await testDelivered("crm");
    const event = new Webhook(secret).verify(d.body, headersOf(d)) as {
      type: string;
      data: { endpoint: string };
    };
    expect(event.type).toBe("webhook.test");
    expect(event.data.endpoint).toBe("crm");
    // Once: the list page, and the page after, never show it again.
    expect(await (await admin.get("/webhooks")).text()).not.toContain(secret);
  });

  it("the secret is in no log line, no audit row and no admin item (G16)", async () => {
    const secret = await addEndpoint("quiet");
    await admin.post("/webhooks/quiet/rotate", { _csrf: csrf, overlapHours: "1" });
    const key = secret.slice("whsec_".length);
    const logs = JSON.stringify(log.lines);
    const audit = JSON.stringify(
      await new AuditRepo({ dynamo: s.stack.clients.dynamo, tables: s.stack.resources.tables }).list({
        limit: 100,
      }),
    );
    const tables = JSON.stringify(await s.stores.admin.exportDocument());
    for (const [where, text] of [
      ["logs", logs],
      ["audit", audit],
      ["admin tables", tables],
    ] as const)
      expect(text.includes(key), where).toBe(false);
    expect(audit).toContain("rotate-secret");
    expect(audit).toContain('id=\\"quiet\\"');
  });

  it("rotating keeps the old secret valid: the next delivery verifies with either", async () => {
    const old = await addEndpoint("rotating");
    const r = await admin.post("/webhooks/rotating/rotate", { _csrf: csrf, overlapHours: "24" });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    const fresh = shownSecret(await r.text());
    expect(fresh).not.toBe(old);
    const d = await testDelivered("rotating");
    for (const key of [old, fresh]) expect(() => new Webhook(key).verify(d.body, headersOf(d))).not.toThrow();
  });

  it("an edit saves the whole form: events, mail text, enabled, description (cleared)", async () => {
    await addEndpoint("edited", { description: "old note" });
    const r = await admin.post("/webhooks/edited/edit", {
      _csrf: csrf,
      url: `${base}/edited-2`,
      "event.mail.accepted": "on",
      "event.run.failed": "on",
      includeMailText: "on",
    });
    expect(r.status).toBe(303);
    const item = await s.stores.admin.getWebhook("edited");
    expect(item).toMatchObject({
      url: `${base}/edited-2`,
      events: ["mail.accepted", "run.failed"],
      includeMailText: true,
      enabled: false,
    });
    expect(item?.description).toBeUndefined();
    const bad = await admin.post("/webhooks/edited/edit", { _csrf: csrf, url: "ftp://x.example/" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("url");
  });

  it("remove needs the confirmation page's confirm=yes; then the item and its secret are gone", async () => {
    await addEndpoint("gone");
    const bare = await admin.post("/webhooks/gone/delete", { _csrf: csrf });
    expect(bare.headers.get("location")).toBe("/webhooks?done=not-removed#gone");
    expect(await s.stores.admin.getWebhook("gone")).not.toBeNull();
    const confirm = await (await admin.get("/webhooks/gone/remove")).text();
    expect(confirm).toContain('name="confirm" value="yes"');
    const r = await admin.post("/webhooks/gone/delete", { _csrf: csrf, confirm: "yes" });
    expect(r.status).toBe(303);
    expect(await s.stores.admin.getWebhook("gone")).toBeNull();
    expect(await secrets().read("gone")).toBeNull();
  });

  it("an invalid endpoint is refused with the field to fix, and nothing is stored (no item, no secret)", async () => {
    const r = await admin.post("/webhooks/add", {
      _csrf: csrf,
      id: "Bad Id",
      url: `${base}/x`,
      allEvents: "on",
    });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain("<li><code>id</code>: must be lower-case");
    const none = await admin.post("/webhooks/add", { _csrf: csrf, id: "noevents", url: `${base}/x` });
    expect(none.status).toBe(400);
    expect(await s.stores.admin.getWebhook("noevents")).toBeNull();
    expect(await secrets().read("noevents")).toBeNull();
  });

  it("the metadata address is refused on add and on edit through the core the CLI uses, switch on or not", async () => {
    const r = await admin.post("/webhooks/add", {
      _csrf: csrf,
      id: "metadata",
      url: "http://169.254.169.254/latest/meta-data/",
      allEvents: "on",
    });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain("every delivery would fail address-not-public");
    expect(await s.stores.admin.getWebhook("metadata")).toBeNull();
    expect(await secrets().read("metadata")).toBeNull();
    await addEndpoint("moved");
    const edit = await admin.post("/webhooks/moved/edit", {
      _csrf: csrf,
      url: "https://169.254.169.254/",
      allEvents: "on",
    });
    expect(edit.status).toBe(400);
    expect(await edit.text()).toContain("every delivery would fail address-not-public");
    expect((await s.stores.admin.getWebhook("moved"))?.url).toContain(base);
  });
});

describe("who may change endpoints", () => {
  it("a viewer gets 403 on every webhook write, with a valid CSRF token, and nothing changes", async () => {
    await addEndpoint("kept");
    const viewer = new ConsoleClient(s.console.url);
    await viewer.signIn(s.console.link({ email: VIEWER, groups: [GROUPS.viewers] }));
    const vcsrf = await viewer.csrf("/webhooks");
    const before = JSON.stringify(await s.stores.admin.exportDocument());
    const secretBefore = await secrets().read("kept");
    for (const [path, form] of [
      ["/webhooks/add", { id: "evil", url: "https://evil.example/", allEvents: "on" }],
      ["/webhooks/kept/edit", { url: "https://evil.example/", allEvents: "on" }],
      ["/webhooks/kept/rotate", { overlapHours: "0" }],
      ["/webhooks/kept/test", {}],
      ["/webhooks/kept/delete", { confirm: "yes" }],
    ] as const) {
      const r = await viewer.post(path, { ...form, _csrf: vcsrf });
      expect(r.status, path).toBe(403);
    }
    expect(JSON.stringify(await s.stores.admin.exportDocument())).toBe(before);
    expect(await secrets().read("kept")).toEqual(secretBefore);
    expect(await (await viewer.get("/webhooks")).text()).not.toContain("Rotate secret");
  });

  it("an admin's write needs our Origin and the session's CSRF token", async () => {
    const form = { id: "csrf", url: `${base}/csrf`, allEvents: "on" };
    expect((await admin.post("/webhooks/add", form)).status).toBe(403);
    expect((await admin.post("/webhooks/add", { ...form, _csrf: "wrong" })).status).toBe(403);
    expect(
      (await admin.post("/webhooks/add", { ...form, _csrf: csrf }, { origin: "https://evil.example" }))
        .status,
    ).toBe(403);
    expect(
      (await admin.post("/webhooks/add", { ...form, _csrf: csrf }, { "sec-fetch-site": "cross-site" }))
        .status,
    ).toBe(403);
    expect(await s.stores.admin.getWebhook("csrf")).toBeNull();
    expect(await secrets().read("csrf")).toBeNull();
  });
});
