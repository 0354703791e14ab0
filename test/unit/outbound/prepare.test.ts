import { describe, expect, it } from "vitest";
import type { AttachmentSource } from "../../../shared/outbound/ports.ts";
import { prepareSend } from "../../../shared/outbound/prepare.ts";
import { noticeRequest, type OutboundPayload } from "../../../shared/payloads/outbound.ts";
import { CONFIG, HELPDESK, INBOUND, newRequest, replyRequest, world } from "./fakes.ts";
import { readMail } from "./mail-helpers.ts";

// prepareSend's own refusals, seen directly: what the queue schema or the callers already rule out is still
// refused here, in the order the send path checks it.

const reply = replyRequest;
const fresh = newRequest;
const notice = (): OutboundPayload =>
  noticeRequest({
    requestId: "notice-1",
    from: HELPDESK.address,
    to: "mallory@example.com",
    reason: "access-denied",
    inboundHop: 4,
    correlationId: "ses-1",
  });

/** The fakes' attachment source, recording the thread each load was narrowed to. */
function recordingAttachments(inner: AttachmentSource) {
  const threads: (string | null)[] = [];
  const source: AttachmentSource = {
    async load(agent, id, threadId) {
      threads.push(threadId);
      return inner.load(agent, id, threadId);
    },
  };
  return { source, threads };
}

describe("prepareSend: notices (G6)", () => {
  it("a notice carries nothing but its one recipient: a Cc, a Bcc or an attachment makes it malformed", async () => {
    const { deps } = world();
    for (const extra of [
      { cc: ["eve@example.com"] },
      { bcc: ["eve@example.com"] },
      { attachmentIds: ["att-1"] },
    ])
      expect(await prepareSend({ ...notice(), ...extra }, deps, "agent")).toEqual({
        ok: false,
        reason: "notice-malformed",
      });
  });

  it("is composed as a notice whatever the caller's origin: stamped and auto-generated even for an operator", async () => {
    const prepared = await prepareSend(notice(), world().deps, "operator");
    const { header } = await readMail(prepared.ok ? prepared.raw : new Uint8Array());
    expect(header("x-postern-recursion")).toEqual(["5"]);
    expect(header("auto-submitted")).toEqual(["auto-generated"]);
  });
});

describe("prepareSend: replies (G9)", () => {
  it("a reply without a target is refused, whatever got past the queue's schema", async () => {
    expect(await prepareSend(reply({ replyTo: undefined }), world().deps, "agent")).toEqual({
      ok: false,
      reason: "reply-target-missing",
    });
  });
});

describe("prepareSend: attachments (G12)", () => {
  it("too many ids are refused before any is loaded", async () => {
    const w = world();
    const spy = recordingAttachments(w.deps.attachments);
    const ids = Array.from({ length: CONFIG.attachments.maxAttachments + 1 }, (_, i) => `att-${i}`);
    const prepared = await prepareSend(
      reply({ attachmentIds: ids }),
      { ...w.deps, attachments: spy.source },
      "agent",
    );
    expect(prepared).toEqual({ ok: false, reason: "too-many-attachments" });
    expect(spy.threads).toEqual([]);
  });

  it("a reply's come only from the thread it answers; new mail's from anywhere in the agent's mailbox", async () => {
    const w = world();
    const spy = recordingAttachments(w.deps.attachments);
    const deps = { ...w.deps, attachments: spy.source };
    expect((await prepareSend(reply({ attachmentIds: ["att-1"] }), deps, "agent")).ok).toBe(true);
    expect((await prepareSend(fresh({ attachmentIds: ["att-1"] }), deps, "agent")).ok).toBe(true);
    expect(spy.threads).toEqual([INBOUND.threadId, null]);
  });
});
