import { describe, expect, it } from "vitest";
import type { OutboundRequest } from "../../../shared/payloads/outbound.ts";
import { sendEmailTool } from "../../../shared/tool-framework/builtin/send-email.ts";
import type { RunTrigger, ToolContext } from "../../../shared/tool-framework/context.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { CONFIG, HELPDESK } from "./fakes.ts";

type Delivered = Omit<OutboundRequest, "requestId" | "agent" | "correlationId" | "runId">;

function ctx(trigger: RunTrigger): ToolContext & { delivered: Delivered[] } {
  const delivered: Delivered[] = [];
  return {
    delivered,
    agent: HELPDESK,
    sender: { address: "alice@example.com", routingKey: "alice@example.com", displayName: "Alice" },
    trigger,
    config: CONFIG,
    logger: recordingLogger(),
    correlationId: "c",
    runId: "run-1",
    round: 1,
    callId: "call-1",
    idempotencyKey: "run-1:1:call-1",
    mailbox: {
      search: async () => [],
      threadMessage: async () => null,
      async attachment(id) {
        if (id !== "att-1") return null;
        return {
          meta: { id, filename: "a.csv", contentType: "text/csv", size: 4 },
          bytes: new Uint8Array(4),
        };
      },
      createFile: async () => {
        throw new Error("unused");
      },
    },
    async deliver(request) {
      delivered.push(request);
      return { ok: true, requestId: "req-1" };
    },
  };
}

const onMessage: RunTrigger = {
  kind: "message",
  message: { id: "msg-1", threadId: "t-1", subject: "Q3", headerMessageId: "<a@b>" },
};
const scheduled: RunTrigger = {
  kind: "responsibility",
  responsibility: {
    id: "digest",
    agent: HELPDESK.address,
    schedule: "rate(1 day)",
    prompt: "p",
    enabled: true,
    archiveScope: "none",
  },
};

const run = (c: ToolContext, input: unknown) => sendEmailTool.use(c, sendEmailTool.input.parse(input));

describe("send_email", () => {
  it("declares an external side effect with an exemption and a structure-only result", () => {
    expect(sendEmailTool.sideEffects).toMatchObject({ kind: "external", confirm: false });
    expect(sendEmailTool.egress).toEqual({ kind: "structure" });
    expect(sendEmailTool.inputJsonSchema).toMatchObject({ type: "object", required: ["mode", "body"] });
  });

  it("reply: the replyTo is the run's trigger message, never a model-chosen id; no subject passes", async () => {
    const c = ctx(onMessage);
    const r = await run(c, { mode: "reply", body: "Hi", cc: ["dave@example.net"], attachments: ["att-1"] });
    expect(r).toEqual({ ok: true, data: { status: "queued", requestId: "req-1" } });
    expect(c.delivered).toEqual([
      {
        mode: "reply",
        replyTo: { messageId: "msg-1" },
        to: [],
        cc: ["dave@example.net"],
        bcc: [],
        body: "Hi",
        attachmentIds: ["att-1"],
        kind: "agent",
      },
    ]);
  });

  it("new: to and subject go through", async () => {
    const c = ctx(scheduled);
    const r = await run(c, { mode: "new", to: ["dave@example.net"], subject: "Digest", body: "Hi" });
    expect(r.ok).toBe(true);
    expect(c.delivered[0]).toMatchObject({ mode: "new", to: ["dave@example.net"], subject: "Digest" });
    expect(c.delivered[0]).not.toHaveProperty("replyTo");
  });

  it.each([
    ["reply on a scheduled run", scheduled, { mode: "reply", body: "x" }, "reply-unavailable"],
    ["subject on a reply", onMessage, { mode: "reply", subject: "URGENT", body: "x" }, "subject-on-reply"],
    ["new without to", onMessage, { mode: "new", subject: "s", body: "x" }, "to-required"],
    ["new without subject", onMessage, { mode: "new", to: ["a@example.com"], body: "x" }, "subject-required"],
    [
      "a display name",
      onMessage,
      { mode: "reply", cc: ["Eve <eve@example.com>"], body: "x" },
      "recipient-invalid",
    ],
    [
      "CRLF in an address",
      onMessage,
      { mode: "reply", bcc: ["a@example.com\r\nBcc: b@example.com"], body: "x" },
      "recipient-invalid",
    ],
    [
      "too many recipients",
      onMessage,
      { mode: "new", subject: "s", to: Array.from({ length: 11 }, (_, i) => `p${i}@example.com`), body: "x" },
      "too-many-recipients",
    ],
    [
      "an attachment not in this thread",
      onMessage,
      { mode: "reply", attachments: ["other"], body: "x" },
      "attachment-not-found",
    ],
  ] as const)("refuses %s", async (_, trigger, input, reason) => {
    const c = ctx(trigger);
    expect(await run(c, input)).toMatchObject({ ok: false, reason });
    expect(c.delivered).toHaveLength(0);
  });

  it("has no field through which the model could set From, Reply-To or headers", () => {
    expect(() =>
      sendEmailTool.input.parse({
        mode: "new",
        to: ["a@example.com"],
        subject: "s",
        body: "x",
        from: "ceo@bank.example",
      }),
    ).toThrow();
    expect(() =>
      sendEmailTool.input.parse({ mode: "reply", body: "x", headers: { "Reply-To": "x@y.z" } }),
    ).toThrow();
  });
});
