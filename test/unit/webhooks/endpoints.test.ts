import { describe, expect, it } from "vitest";
import type { EndpointPorts } from "../../../shared/webhooks/endpoints.ts";
import {
  addEndpoint,
  endpointItem,
  rotateEndpoint,
  WEBHOOK_EVENT_TYPES,
} from "../../../shared/webhooks/index.ts";
import type { EndpointSecrets } from "../../../shared/webhooks/secrets.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

// The registration core the CLI and the console share: the one admin write check, then the secret, then the item
// (an endpoint is never live without a way to sign), and the secret taken back when the item is not written.

const catalog = { domains: [], models: [], tools: [], maxRecipients: 10 };
// A zone for the endpoints' hosts: crm.example is public; the rest name what delivery refuses.
const ZONE: Record<string, string[]> = {
  "crm.example": ["93.184.216.34"],
  "intranet.example": ["10.0.0.7"],
  "rebind.example": ["93.184.216.34", "169.254.169.254"],
};
const zone = async (host: string) => ZONE[host] ?? [];
const reach = { resolve: zone, allowLoopback: false, local: true };

function ports(put: "ok" | "duplicate" = "ok") {
  const order: string[] = [];
  const items = new Map<string, Record<string, unknown>>();
  const secrets = new Map<string, EndpointSecrets>();
  const p: EndpointPorts = {
    repo: {
      logger: recordingLogger(),
      rawItems: async () => [],
      getWebhook: async (id) => (items.has(id) ? (items.get(id) as never) : null),
      putWebhook: async (input) => {
        order.push("item");
        if (put === "duplicate") return { ok: false, reason: "duplicate" };
        const item = input as Record<string, unknown>;
        items.set(String(item.id), item);
        return { ok: true, item: item as never, created: true };
      },
      deleteWebhook: async (id) => items.delete(id),
    },
    secrets: {
      read: async (id) => secrets.get(id) ?? null,
      write: async (id, s) => {
        order.push("secret");
        secrets.set(id, s);
      },
      remove: async (id) => {
        order.push("secret-removed");
        secrets.delete(id);
      },
    },
  };
  return { p, order, items, secrets };
}

const crm = endpointItem(
  { id: "crm", url: "https://crm.example/hook", events: ["all"] },
  WEBHOOK_EVENT_TYPES,
);

describe("addEndpoint", () => {
  it("stores the secret before the item, and returns the secret it stored", async () => {
    const { p, order, secrets } = ports();
    const r = await addEndpoint(p, crm, { catalog, reach });
    expect(order).toEqual(["secret", "item"]);
    expect(r.ok && secrets.get("crm")).toEqual({ current: r.ok ? r.secret : "" });
    expect(crm.events).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it("takes the secret back when the item is not written", async () => {
    const { p, order, secrets } = ports("duplicate");
    const r = await addEndpoint(p, crm, { catalog, reach });
    expect(r).toEqual({ ok: false, reason: "exists" });
    expect(order).toEqual(["secret", "item", "secret-removed"]);
    expect(secrets.size).toBe(0);
  });

  it("writes nothing when the check refuses, or when beforeStore throws", async () => {
    const bad = ports();
    const r = await addEndpoint(bad.p, { ...crm, events: [] }, { catalog, reach });
    expect(r.ok).toBe(false);
    expect(bad.order).toEqual([]);
    const thrown = ports();
    await expect(
      addEndpoint(thrown.p, crm, {
        catalog,
        reach,
        beforeStore: () => {
          throw new Error("no file");
        },
      }),
    ).rejects.toThrow("no file");
    expect(thrown.order).toEqual([]);
  });
});

describe("addEndpoint refuses an endpoint no delivery could reach (issue 31 item 7, finding 3)", () => {
  const add = async (url: string, where: Partial<typeof reach> = {}) => {
    const { p, order } = ports();
    const item = endpointItem({ id: "hook", url, events: ["all"] }, WEBHOOK_EVENT_TYPES);
    const r = await addEndpoint(p, item, { catalog, reach: { ...reach, ...where } });
    return { r, order, message: !r.ok && r.reason === "invalid" ? (r.issues[0]?.message ?? "") : "" };
  };

  it("refuses loopback naming the local switch, and stores nothing", async () => {
    const { r, order, message } = await add("http://127.0.0.1:8080/hook");
    expect(r).toMatchObject({ ok: false, reason: "invalid", issues: [{ path: "webhooks[0].url" }] });
    expect(message).toContain("(ipv4-loopback): every delivery would fail address-not-public");
    expect(message).toContain("POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1");
    expect(order).toEqual([]);
  });

  it("admits loopback over http with the switch on, and only locally", async () => {
    expect((await add("http://127.0.0.1:8080/hook", { allowLoopback: true })).r.ok).toBe(true);
    const aws = await add("https://127.0.0.1/hook", { local: false });
    expect(aws.message).toContain("the deployed worker never reaches loopback");
    expect(aws.message).not.toContain("POSTERN_WEBHOOKS_ALLOW_LOOPBACK");
  });

  it("refuses the metadata address and private ranges, switch or not, however the host names them", async () => {
    for (const url of [
      "https://169.254.169.254/latest/meta-data",
      "https://[::ffff:169.254.169.254]/",
      "https://intranet.example/hook",
      "https://rebind.example/hook",
      "https://192.168.1.10/hook",
    ]) {
      const { r, message } = await add(url, { allowLoopback: true });
      expect(r.ok, url).toBe(false);
      expect(message, url).toContain("every delivery would fail address-not-public");
      expect(message, url).toContain("refused with or without the loopback switch");
    }
  });

  it("refuses plain http to a public host, as every delivery would", async () => {
    const { message } = await add("http://crm.example/hook", { allowLoopback: true });
    expect(message).toContain("webhook endpoints must use https");
  });
});

describe("endpoint ids", () => {
  it("refuses a new id ending in a hyphen and six characters (the shape of Secrets Manager's ARN suffix)", async () => {
    for (const id of ["crm-abcdef", "a-123456", "hooks-prod.1"]) {
      const f = ports();
      const r = await addEndpoint(f.p, { ...crm, id }, { catalog, reach });
      expect(r.ok ? "stored" : r.reason).toBe("invalid");
      expect(!r.ok && r.reason === "invalid" && r.issues[0]?.message).toMatch(/hyphen and six characters/);
      expect(f.order).toEqual([]);
    }
    for (const id of ["crm", "crm-prod", "crm-abcdefg", "crm_abcdef", "crm-v2.prod"]) {
      expect((await addEndpoint(ports().p, { ...crm, id }, { catalog, reach })).ok).toBe(true);
    }
  });
});

describe("rotateEndpoint", () => {
  it("keeps the old secret signing through the overlap", async () => {
    const { p, secrets } = ports();
    await addEndpoint(p, crm, { catalog, reach });
    const old = secrets.get("crm")?.current;
    const now = new Date("2026-12-01T10:00:00Z");
    const r = await rotateEndpoint(p, "crm", { overlapHours: 24, now });
    expect(r.ok && r.previousUntil).toBe("2026-12-02T10:00:00.000Z");
    expect(secrets.get("crm")).toEqual({
      current: r.ok ? r.secret : "",
      previous: old,
      previousUntil: "2026-12-02T10:00:00.000Z",
    });
    expect(await rotateEndpoint(p, "nobody", { overlapHours: 1, now })).toEqual({
      ok: false,
      reason: "not-found",
    });
  });
});
