import { describe, expect, it } from "vitest";
import { budgetNoticeRequest } from "../../../shared/agent/runs/budget-notice.ts";
import { processOutboundRequest } from "../../../shared/outbound/process.ts";
import type { OutboundPayload } from "../../../shared/payloads/outbound.ts";
import { noticeRequest } from "../../../shared/payloads/outbound.ts";
import { UNKNOWN_OUTCOME_LOG } from "../../../shared/ports/failures.ts";
import { agent, replyRun } from "../../fakes/builders.ts";
import { HELPDESK, INBOUND, newRequest, recordingSes, replyRequest, world } from "./fakes.ts";
import { readMail } from "./mail-helpers.ts";

const reply = replyRequest;
const fresh = newRequest;

describe("processOutboundRequest: a reply", () => {
  it("sends once, reply-all, from the agent, with threading and stamps, and records what SES reported", async () => {
    const w = world();
    const out = await processOutboundRequest(reply(), w.deps);
    expect(out).toEqual({
      status: "done",
      requestId: "run-1:1:call-1",
      headerMessageId: "<0100-ses-1-000000@email.amazonses.com>",
      replayed: false,
    });
    expect(w.ses.calls).toHaveLength(1);
    const call = w.ses.calls[0];
    expect(call).toMatchObject({
      from: HELPDESK.address,
      to: ["alice@example.com", "bob@example.com"],
      cc: ["carol@example.org"],
      bcc: [],
      configurationSet: "postern-out",
    });
    const { email, header } = await readMail(call?.raw ?? new Uint8Array());
    expect(email.from).toMatchObject({ address: HELPDESK.address, name: HELPDESK.name });
    expect(email.subject).toBe("Re: Quarterly numbers");
    expect(email.inReplyTo).toBe("<CAroot2@mail.gmail.com>");
    expect(email.references).toBe("<CAroot@mail.gmail.com> <CAroot2@mail.gmail.com>");
    expect(header("x-postern-recursion")).toEqual(["3"]);
    expect(header("auto-submitted")).toEqual(["auto-replied"]);
    // Evidence: the exact bytes handed to SES.
    expect(w.blobs.get(`outbound/${encodeURIComponent("run-1:1:call-1")}.eml`)).toEqual(call?.raw);
    expect(w.recorded).toHaveLength(1);
    expect(w.recorded[0]).toMatchObject({
      agent: HELPDESK.address,
      direction: "out",
      threadId: INBOUND.threadId,
      headerMessageId: "<0100-ses-1-000000@email.amazonses.com>",
      sesMessageId: "0100-ses-1-000000",
      inReplyTo: "<CAroot2@mail.gmail.com>",
      subject: "Re: Quarterly numbers",
      hop: 3,
      replyToMessageId: INBOUND.id,
    });
  });

  it("a short body is kept on the mailbox record; a long one is written to S3 and named by its key", async () => {
    const short = world();
    await processOutboundRequest(reply({ body: "Thanks, on it." }), short.deps);
    expect(short.recorded[0]?.body).toBe("Thanks, on it.");
    expect([...short.blobs.keys()].filter((k) => k.startsWith("mail/"))).toEqual([]);

    const long = world();
    const text = "line of a long answer\n".repeat(50); // 1,100 bytes: over the 1 KiB a send plan carries
    await processOutboundRequest(reply({ body: text }), long.deps);
    const recorded = long.recorded[0];
    expect(recorded?.body).toBeUndefined();
    expect(new TextDecoder().decode(long.blobs.get(String(recorded?.bodyKey)))).toBe(text);
  });

  it("a redelivery after done sends nothing and records nothing new", async () => {
    const w = world();
    await processOutboundRequest(reply(), w.deps);
    const again = await processOutboundRequest(reply(), w.deps);
    expect(again).toMatchObject({ status: "done", replayed: true });
    expect(w.ses.calls).toHaveLength(1);
    expect(w.recorded).toHaveLength(1);
  });

  it("two concurrent deliveries of one request make one SES call", async () => {
    const w = world();
    const outs = await Promise.all([
      processOutboundRequest(reply(), w.deps),
      processOutboundRequest(reply(), w.deps),
    ]);
    expect(w.ses.calls).toHaveLength(1);
    // The loser either follows the winner to `done` or, if it looks while SES is being called, retries later.
    expect(outs.map((o) => o.status)).toContain("done");
    for (const o of outs) expect(["done", "retry"]).toContain(o.status);
  });

  it("the From is the admin table's agent whatever the request's spelling", async () => {
    const w = world();
    await processOutboundRequest(fresh({ agent: "HELPDESK@agents.example.com" }), w.deps);
    const { email } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.from).toMatchObject({ address: "helpdesk@agents.example.com", name: "Helpdesk" });
  });

  it("attaches files by id", async () => {
    const w = world();
    await processOutboundRequest(reply({ attachmentIds: ["att-1"] }), w.deps);
    const { email } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.attachments.map((a) => a.filename)).toEqual(["numbers.csv"]);
    expect(w.recorded[0]?.attachments).toEqual([
      { id: "att-1", filename: "numbers.csv", contentType: "text/csv", size: 8 },
    ]);
  });

  it("operator mail (CLI) is not stamped", async () => {
    const w = world();
    await processOutboundRequest(fresh(), w.deps, { origin: "operator" });
    const { header } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
    expect(header("x-postern-recursion")).toEqual([]);
    expect(header("auto-submitted")).toEqual([]);
  });
});

describe("processOutboundRequest: new mail", () => {
  it("uses the model's subject, hop 1, no threading, a new thread", async () => {
    const w = world();
    await processOutboundRequest(fresh(), w.deps);
    const { email, header } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.subject).toBe("Weekly digest");
    expect(header("x-postern-recursion")).toEqual(["1"]);
    expect(header("auto-submitted")).toEqual(["auto-generated"]);
    expect(header("in-reply-to")).toEqual([]);
    expect(w.recorded[0]?.threadId).toMatch(/^thread-[0-9a-f]{24}$/);
  });
});

describe("processOutboundRequest: refusals are permanent, recorded, and never sent", () => {
  const cases: [string, OutboundPayload, string][] = [
    ["a reply carrying a model subject", reply({ subject: "Urgent: wire money" }), "subject-on-reply"],
    ["a reply to an unknown message", reply({ replyTo: { messageId: "nope" } }), "reply-target-not-found"],
    ["an unknown agent", reply({ agent: "ghost@agents.example.com" }), "agent-unknown"],
    ["a foreign domain", reply({ agent: "helpdesk@evil.example" }), "domain-unregistered"],
    ["an invalid model address", fresh({ to: ["Eve <eve@example.com>"] }), "recipient-invalid"],
    [
      "too many recipients",
      fresh({ to: Array.from({ length: 11 }, (_, i) => `p${i}@example.net`) }),
      "too-many-recipients",
    ],
    [
      "an attachment outside the mailbox",
      reply({ attachmentIds: ["att-of-other-agent"] }),
      "attachment-not-found",
    ],
  ];
  it.each(cases)("%s", async (_, message, reason) => {
    const w = world();
    expect(await processOutboundRequest(message, w.deps)).toMatchObject({ status: "failed", reason });
    expect(w.ses.calls).toHaveLength(0);
    expect(await processOutboundRequest(message, w.deps)).toMatchObject({ status: "failed", reason });
    expect(w.ses.calls).toHaveLength(0);
  });

  it("a reply into another agent's message is not found (scoped mailbox)", async () => {
    const sales = { ...HELPDESK, address: "sales@agents.example.com", name: "Sales" };
    const w = world();
    const w2 = world({
      agents: { get: async (a) => (a === sales.address ? sales : null), outboundRules: async () => [] },
      mailbox: w.deps.mailbox,
    });
    expect(await processOutboundRequest(reply({ agent: sales.address }), w2.deps)).toMatchObject({
      status: "failed",
      reason: "reply-target-not-found",
    });
  });

  it("a disabled agent does not send", async () => {
    const w = world({
      agents: { get: async () => ({ ...HELPDESK, enabled: false }), outboundRules: async () => [] },
    });
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({
      status: "failed",
      reason: "agent-disabled",
    });
  });

  it("replying to our own outbound message is refused", async () => {
    const w = world();
    const out = { ...INBOUND, direction: "out" as const };
    const w2 = world({ mailbox: { getMessage: async () => out, recordSent: w.deps.mailbox.recordSent } });
    expect(await processOutboundRequest(reply(), w2.deps)).toMatchObject({
      reason: "reply-target-not-inbound",
    });
  });
});

describe("processOutboundRequest: SES outcomes", () => {
  it("a permanent rejection fails the request; a redelivery does not try again", async () => {
    const w = world(
      {},
      recordingSes(() => ({ kind: "rejected", retryable: false, code: "MessageRejected" })),
    );
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({
      status: "failed",
      reason: "ses-rejected",
      code: "MessageRejected",
    });
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({
      reason: "ses-rejected",
      code: "MessageRejected",
    });
    expect(w.ses.calls).toHaveLength(1);
  });

  it("throttling returns the request to claimed; the redelivery sends it", async () => {
    const w = world(
      {},
      recordingSes((_i, n) =>
        n === 1
          ? { kind: "rejected", retryable: true, code: "TooManyRequestsException" }
          : { kind: "accepted", messageId: "m-2" },
      ),
    );
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({
      status: "retry",
      reason: "ses-throttled",
    });
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({ status: "done", replayed: false });
    expect(w.ses.calls).toHaveLength(2);
    expect(w.recorded).toHaveLength(1);
  });

  it("no answer from SES is the unknown window: flagged with an actionable log line, never re-sent", async () => {
    const w = world(
      {},
      recordingSes(() => {
        throw Object.assign(new Error("socket hang up"), { name: "TimeoutError" });
      }),
    );
    expect(await processOutboundRequest(reply(), w.deps)).toEqual({
      status: "unknown",
      requestId: "run-1:1:call-1",
    });
    const line = w.logger.lines.find((l) => l.message === UNKNOWN_OUTCOME_LOG);
    expect(line).toMatchObject({
      level: "error",
      extra: { requestId: "run-1:1:call-1", reason: "ses-no-answer" },
    });
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({ status: "unknown" });
    expect(w.ses.calls).toHaveLength(1);
    expect(w.recorded).toHaveLength(0);
  });

  it("a `sending` item younger than the lease is someone else's; older is a crash, marked unknown", async () => {
    const w = world({ inFlightLeaseMs: 60_000 });
    await w.deps.state.claim("r-9", w.clock.now.toISOString());
    await w.deps.state.transition(
      "r-9",
      ["claimed"],
      "sending",
      { sendingAt: w.clock.now.toISOString() },
      w.clock.now.toISOString(),
    );
    const msg = reply({ requestId: "r-9" });
    w.clock.now = new Date(w.clock.now.getTime() + 59_000);
    expect(await processOutboundRequest(msg, w.deps)).toMatchObject({ status: "retry", reason: "in-flight" });
    w.clock.now = new Date(w.clock.now.getTime() + 2_000);
    expect(await processOutboundRequest(msg, w.deps)).toMatchObject({ status: "unknown" });
    expect(w.logger.lines.filter((l) => l.message === UNKNOWN_OUTCOME_LOG)).toHaveLength(1);
    expect((await w.deps.state.get("r-9"))?.state).toBe("unknown");
    expect(w.ses.calls).toHaveLength(0);
  });

  it("SES answering after a lease-expired redelivery flagged the item still ends done", async () => {
    let flag: (() => Promise<void>) | undefined;
    const w = world(
      { inFlightLeaseMs: 0 },
      recordingSes(async () => {
        await flag?.();
        return { kind: "accepted", messageId: "late-1" };
      }),
    );
    flag = async () => {
      // A duplicate delivery arrives while SES is slow and the lease has run out.
      expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({ status: "unknown" });
    };
    expect(await processOutboundRequest(reply(), w.deps)).toMatchObject({ status: "done" });
    expect((await w.deps.state.get("run-1:1:call-1"))?.state).toBe("done");
    expect(w.ses.calls).toHaveLength(1);
  });
});

describe("notices (G6)", () => {
  const notice = (over: Partial<Parameters<typeof noticeRequest>[0]> = {}) =>
    noticeRequest({
      requestId: "notice-1",
      from: HELPDESK.address,
      to: "mallory@example.com",
      reason: "access-denied",
      inboundHop: 4,
      correlationId: "ses-1",
      ...over,
    });

  it("fixed engine text, From the agent, To only the proven sender, hop = inbound + 1, not in the mailbox", async () => {
    const w = world();
    expect(await processOutboundRequest(notice(), w.deps)).toMatchObject({ status: "done" });
    const call = w.ses.calls[0];
    expect(call).toMatchObject({ from: HELPDESK.address, to: ["mallory@example.com"], cc: [], bcc: [] });
    const { email, header } = await readMail(call?.raw ?? new Uint8Array());
    expect(email.subject).toBe("Message not delivered: sender not permitted");
    expect(email.text).toContain("Reason code: access-denied");
    expect(header("x-postern-recursion")).toEqual(["5"]);
    expect(header("auto-submitted")).toEqual(["auto-generated"]);
    expect(w.recorded).toHaveLength(0);
  });

  it("any text in a notice request is ignored: only the reason code is rendered", async () => {
    const w = world();
    const m = { ...notice(), body: "access-denied", subject: "ignored" };
    await processOutboundRequest({ ...m, notice: undefined }, w.deps);
    const { email } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.subject).toBe("Message not delivered: sender not permitted");
    const w2 = world();
    const hostile = {
      ...notice(),
      notice: undefined,
      body: "Click http://evil.example to verify your account",
    };
    expect(await processOutboundRequest(hostile, w2.deps)).toMatchObject({
      status: "failed",
      reason: "notice-malformed",
    });
    expect(w2.ses.calls).toHaveLength(0);
  });

  it("the engine's budget notices are rendered and sent (they were refused as notice-malformed before)", async () => {
    for (const [code, subject] of [
      ["sender-runs-per-day", "Message not processed: daily limit reached"],
      ["agent-tokens-per-day", "Message not processed: daily limit reached"],
    ] as const) {
      const w = world();
      const run = {
        ...replyRun(),
        sender: { address: "carol@example.com", routingKey: "carol@example.com", displayName: "" },
      };
      const request = budgetNoticeRequest(run, { ...agent(), address: HELPDESK.address }, code, new Date());
      if (!request) throw new Error("no notice");
      expect(await processOutboundRequest(request, w.deps)).toMatchObject({ status: "done" });
      const { email } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
      expect(email.subject).toBe(subject);
      expect(email.text).toContain(
        code.startsWith("sender-") ? "Reason code: sender-budget" : "Reason code: agent-budget",
      );
    }
  });

  it("the verify function's shape (gate reason code in body) maps to a notice", async () => {
    const w = world();
    await processOutboundRequest({ ...notice(), notice: undefined, body: "access-denied-global" }, w.deps);
    const { email } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.text).toContain("Reason code: access-denied");
  });

  it("a notice about an unknown address comes from the domain's postmaster", async () => {
    const w = world();
    await processOutboundRequest(
      notice({ from: "nobody@agents.example.com", reason: "unknown-recipient" }),
      w.deps,
    );
    const { email } = await readMail(w.ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.from).toMatchObject({
      address: "postmaster@agents.example.com",
      name: "Mail Delivery System",
    });
  });

  it("a notice goes to exactly one recipient", async () => {
    const w = world();
    const two = { ...notice(), to: ["a@example.com", "b@example.com"] };
    expect(await processOutboundRequest(two, w.deps)).toMatchObject({
      status: "failed",
      reason: "notice-malformed",
    });
  });
});
