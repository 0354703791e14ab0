import { describe, expect, it } from "vitest";
import {
  addEndpoint,
  type EndpointPorts,
  type EndpointSecrets,
  endpointItem,
  rotateEndpoint,
  WEBHOOK_EVENT_TYPES,
} from "../../../shared/events/index.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

// The registration core the CLI and the console share: the one admin write check, then the secret, then the item
// (an endpoint is never live without a way to sign), and the secret taken back when the item is not written.

const catalog = { domains: [], models: [], tools: [], maxRecipients: 10 };

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
    const r = await addEndpoint(p, crm, { catalog });
    expect(order).toEqual(["secret", "item"]);
    expect(r.ok && secrets.get("crm")).toEqual({ current: r.ok ? r.secret : "" });
    expect(crm.events).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it("takes the secret back when the item is not written", async () => {
    const { p, order, secrets } = ports("duplicate");
    const r = await addEndpoint(p, crm, { catalog });
    expect(r).toEqual({ ok: false, reason: "exists" });
    expect(order).toEqual(["secret", "item", "secret-removed"]);
    expect(secrets.size).toBe(0);
  });

  it("writes nothing when the check refuses, or when beforeStore throws", async () => {
    const bad = ports();
    const r = await addEndpoint(bad.p, { ...crm, events: [] }, { catalog });
    expect(r.ok).toBe(false);
    expect(bad.order).toEqual([]);
    const thrown = ports();
    await expect(
      addEndpoint(thrown.p, crm, {
        catalog,
        beforeStore: () => {
          throw new Error("no file");
        },
      }),
    ).rejects.toThrow("no file");
    expect(thrown.order).toEqual([]);
  });
});

describe("endpoint ids", () => {
  it("refuses a new id ending in a hyphen and six characters (the shape of Secrets Manager's ARN suffix)", async () => {
    for (const id of ["crm-abcdef", "a-123456", "hooks-prod.1"]) {
      const f = ports();
      const r = await addEndpoint(f.p, { ...crm, id }, { catalog });
      expect(r.ok ? "stored" : r.reason).toBe("invalid");
      expect(!r.ok && r.reason === "invalid" && r.issues[0]?.message).toMatch(/hyphen and six characters/);
      expect(f.order).toEqual([]);
    }
    for (const id of ["crm", "crm-prod", "crm-abcdefg", "crm_abcdef", "crm-v2.prod"]) {
      expect((await addEndpoint(ports().p, { ...crm, id }, { catalog })).ok).toBe(true);
    }
  });
});

describe("rotateEndpoint", () => {
  it("keeps the old secret signing through the overlap", async () => {
    const { p, secrets } = ports();
    await addEndpoint(p, crm, { catalog });
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
