import { describe, expect, it } from "vitest";
import type { WebhookItem } from "../../../shared/admin/index.ts";
import type { Resources } from "../../../shared/config/index.ts";
import { webhookSinkFor } from "../../../shared/webhooks/index.ts";
import { SUBSCRIBERS_MAX_AGE_MS } from "../../../shared/webhooks/wiring.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

// Emission points queue an event only when an enabled endpoint takes its type: a deployment without webhooks pays
// no SQS send and no worker invocation per mail. The endpoints are read once per SUBSCRIBERS_MAX_AGE_MS.

const resources = { queues: { events: "https://sqs.local/q/events" } } as unknown as Resources;
const hook = (over: Partial<WebhookItem> = {}): WebhookItem => ({
  id: "crm",
  url: "https://crm.example/hook",
  events: ["mail.accepted"],
  includeMailText: false,
  enabled: true,
  ...over,
});

function setup(list: () => Promise<WebhookItem[]>) {
  const sent: string[] = [];
  const logger = recordingLogger();
  let reads = 0;
  let clock = 0;
  const sink = webhookSinkFor(
    {
      resources,
      clients: {
        sqs: {
          send: async (cmd: unknown) => {
            sent.push(JSON.parse((cmd as { input: { MessageBody: string } }).input.MessageBody).event.type);
            return {};
          },
        } as never,
      },
      stores: {
        admin: {
          listWebhooks: () => {
            reads++;
            return list();
          },
        },
      },
      logger,
    },
    () => clock,
  );
  const emit = (type: "mail.accepted" | "run.failed") => sink.emit({ type, key: `k-${type}`, data: {} });
  const advance = (ms: number) => {
    clock += ms;
  };
  return { sent, emit, reads: () => reads, advance, logger };
}

describe("events are queued only for a subscribed, enabled endpoint", () => {
  it("no endpoint: nothing is queued", async () => {
    const s = setup(async () => []);
    await s.emit("mail.accepted");
    await s.emit("run.failed");
    expect(s.sent).toEqual([]);
  });

  it("an endpoint gets the types it subscribes to, and no others", async () => {
    const s = setup(async () => [hook()]);
    await s.emit("mail.accepted");
    await s.emit("run.failed");
    expect(s.sent).toEqual(["mail.accepted"]);
  });

  it("a disabled endpoint subscribes to nothing", async () => {
    const s = setup(async () => [hook({ enabled: false })]);
    await s.emit("mail.accepted");
    expect(s.sent).toEqual([]);
  });

  it("an endpoint list that cannot be read queues the event: the worker decides", async () => {
    const s = setup(async () => {
      throw new Error("AccessDenied");
    });
    await s.emit("run.failed");
    expect(s.sent).toEqual(["run.failed"]);
    expect(s.logger.lines).toEqual([
      expect.objectContaining({
        level: "warn",
        message: "events-subscribers-unread",
        extra: { eventType: "run.failed", error: "Error" },
      }),
    ]);
  });

  it("reads the endpoints once per SUBSCRIBERS_MAX_AGE_MS, so an added endpoint is seen within it", async () => {
    let list: WebhookItem[] = [];
    const s = setup(async () => list);
    await s.emit("mail.accepted");
    list = [hook()];
    await s.emit("mail.accepted");
    expect([s.reads(), s.sent.length]).toEqual([1, 0]);
    s.advance(SUBSCRIBERS_MAX_AGE_MS + 1);
    await s.emit("mail.accepted");
    expect([s.reads(), s.sent]).toEqual([2, ["mail.accepted"]]);
  });
});
