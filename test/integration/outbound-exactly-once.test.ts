import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { createMailbox } from "../../shared/agent/mailbox/mailbox.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import type { OutboundDeps } from "../../shared/outbound/ports.ts";
import { processOutboundRequest } from "../../shared/outbound/process.ts";
import { outboundDeps } from "../../shared/outbound/wiring.ts";
import type { OutboundPayload } from "../../shared/payloads/outbound.ts";
import { UNKNOWN_OUTCOME_LOG } from "../../shared/ports/failures.ts";
import { noWebhooks } from "../../shared/ports/index.ts";
import { listUncertainSends, sendPk } from "../../shared/store/send-state-store.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { WHOLE } from "../fakes/builders.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { CONFIG, HELPDESK, recordingSes } from "../unit/outbound/fakes.ts";
import { readMail } from "../unit/outbound/mail-helpers.ts";

/**
 * Exactly-once against the emulators: the REAL state repository (dynalite, conditional writes), message and
 * thread repositories and blob store (fauxqs S3); only SES is a recording fake. A crash is a throw injected
 * right after one step of the state machine, then SQS's redelivery is simulated by calling again.
 */

let emu: Emulators;
let stores: Stores;
const INBOUND_ID = "20261129T090000000-0000abcd";
const THREAD = "thread-gmail-1";

beforeAll(async () => {
  emu = await startEmulators();
  stores = makeStores(makeClients(emu.resources), emu.resources, recordingLogger());
  await stores.admin.putAgent({ address: HELPDESK.address, name: HELPDESK.name, model: "demo" });
  await stores.messages.put({
    agent: HELPDESK.address,
    id: INBOUND_ID,
    direction: "in",
    threadId: THREAD,
    headerMessageId: "CAroot2@mail.gmail.com",
    inReplyTo: "CAroot@mail.gmail.com",
    references: ["CAroot@mail.gmail.com"],
    from: "alice@example.com",
    to: [HELPDESK.address],
    cc: ["carol@example.org"],
    subject: "RE: Quarterly numbers",
    at: "2026-11-29T09:00:00.000Z",
    bodyKey: `mail/${HELPDESK.address}/${INBOUND_ID}/body.txt`,
    hasHtmlOnly: false,
    attachments: [],
    hop: 1,
  });
});

afterAll(async () => {
  await emu?.stop();
});

const LEASE_MS = 120_000;

let world = 0;
function setup() {
  const tag = ++world;
  // SES ids unique per test, so the thread's records can be counted per test.
  const ses = recordingSes((_i, n) => ({ kind: "accepted", messageId: `0100-w${tag}-${n}-000000` }));
  const logger = recordingLogger();
  const clock = { now: new Date("2026-11-29T10:00:00Z") };
  const deps: OutboundDeps = {
    ...outboundDeps(
      { stores, config: CONFIG, resources: { region: "us-east-1" }, logger, now: () => clock.now },
      { ses, webhooks: noWebhooks },
    ),
    inFlightLeaseMs: LEASE_MS,
  };
  return { ses, logger, clock, deps, sesId: (n: number) => `0100-w${tag}-${n}-000000` };
}

let seq = 0;
const reply = (): OutboundPayload => ({
  requestId: `it-${++seq}-${Date.now()}`,
  agent: HELPDESK.address,
  mode: "reply",
  replyTo: { messageId: INBOUND_ID },
  to: [],
  cc: [],
  bcc: [],
  body: "Numbers attached.",
  attachmentIds: [],
  correlationId: "corr",
  kind: "agent",
});

async function stateOf(requestId: string) {
  return (await stores.state.get(sendPk(requestId), "send"))?.state;
}

class Crash extends Error {
  override name = "Crash";
}

type Step = "claim" | "evidence" | "sending" | "ses-accepted" | "sent" | "recorded" | "done";

/** The same deps, crashing once right after `step` has happened. */
function crashingAfter(step: Step, deps: OutboundDeps): OutboundDeps {
  let armed = true;
  const crash = (when: boolean) => {
    if (armed && when) {
      armed = false;
      throw new Crash(`crash after ${step}`);
    }
  };
  return {
    ...deps,
    state: {
      get: (id) => deps.state.get(id),
      async claim(id, at) {
        const r = await deps.state.claim(id, at);
        crash(step === "claim");
        return r;
      },
      async transition(id, from, to, fields, at) {
        const r = await deps.state.transition(id, from, to, fields, at);
        crash(
          r &&
            ((step === "sending" && to === "sending") ||
              (step === "sent" && to === "sent") ||
              (step === "done" && to === "done")),
        );
        return r;
      },
    },
    blobs: {
      async put(key, bytes, type) {
        await deps.blobs.put(key, bytes, type);
        crash(step === "evidence");
      },
    },
    ses: {
      async send(input) {
        const r = await deps.ses.send(input);
        // SES accepted, then the process dies: nothing after this line ever runs (a throw here would be read
        // as "SES did not answer", which the unit tests cover). The caller never settles, like a killed Lambda.
        if (armed && step === "ses-accepted") return new Promise<never>(() => {});
        return r;
      },
    },
    mailbox: {
      getMessage: (a, id) => deps.mailbox.getMessage(a, id),
      async recordSent(m) {
        await deps.mailbox.recordSent(m);
        crash(step === "recorded");
      },
    },
  };
}

describe("outbound exactly-once (emulators, real state repo)", () => {
  it("one send, recorded in the thread with SES's Message-ID, indexed for the recipients' replies", async () => {
    const { ses, deps, sesId } = setup();
    const m = reply();
    const out = await processOutboundRequest(m, deps);
    expect(out).toMatchObject({ status: "done", replayed: false });
    expect(ses.calls).toHaveLength(1);
    const thread = await stores.messages.listByThread(HELPDESK.address, THREAD);
    const sent = thread.filter((x) => x.direction === "out" && x.sesMessageId === sesId(1));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      headerMessageId: `${sesId(1)}@email.amazonses.com`,
      subject: "Re: Quarterly numbers",
      hop: 2,
    });
    // A recipient's reply referencing SES's id lands in this thread.
    const resolved = await stores.threads.resolveThread(HELPDESK.address, {
      headerMessageId: "<CAnext@mail.gmail.com>",
      inReplyTo: `<${sesId(1)}@email.amazonses.com>`,
      references: [],
      subject: "Re: Quarterly numbers",
    });
    expect(resolved).toEqual({ threadId: THREAD, isNew: false });
    const eml = await stores.blobs.get(`outbound/${encodeURIComponent(m.requestId)}.eml`);
    expect(eml && Buffer.from(eml).equals(Buffer.from(ses.calls[0]?.raw ?? []))).toBe(true);
    const { email } = await readMail(eml ?? new Uint8Array());
    expect(email.inReplyTo).toBe("<CAroot2@mail.gmail.com>");
    expect(await stateOf(m.requestId)).toBe("done");
  });

  it("redelivered three times (and concurrently) it still sends once", async () => {
    const { ses, deps } = setup();
    const m = reply();
    await Promise.all([
      processOutboundRequest(m, deps),
      processOutboundRequest(m, deps),
      processOutboundRequest(m, deps),
    ]);
    for (let i = 0; i < 3; i++) await processOutboundRequest(m, deps);
    expect(ses.calls).toHaveLength(1);
    expect(await stateOf(m.requestId)).toBe("done");
  });

  const outsideWindow: Step[] = ["claim", "evidence", "sent", "recorded", "done"];
  it.each(outsideWindow)(
    "a crash right after `%s`, then redelivery: exactly one SES call, recorded once",
    async (step) => {
      const { ses, deps, logger, sesId } = setup();
      const m = reply();
      await expect(processOutboundRequest(m, crashingAfter(step, deps))).rejects.toThrow(Crash);
      const out = await processOutboundRequest(m, deps);
      expect(out.status).toBe("done");
      expect(ses.calls).toHaveLength(1);
      expect(await stateOf(m.requestId)).toBe("done");
      const thread = await stores.messages.listByThread(HELPDESK.address, THREAD);
      expect(thread.filter((x) => x.direction === "out" && x.sesMessageId === sesId(1))).toHaveLength(1);
      expect(logger.lines.filter((l) => l.message === UNKNOWN_OUTCOME_LOG)).toHaveLength(0);
    },
  );

  const inWindow: [Step, number][] = [
    ["sending", 0],
    ["ses-accepted", 1],
  ];
  it.each(inWindow)(
    "a crash right after `%s` is the documented window: never re-sent (%i SES call), marked unknown and logged",
    async (step, calls) => {
      const { ses, deps, logger, clock } = setup();
      const m = reply();
      if (step === "ses-accepted") {
        void processOutboundRequest(m, crashingAfter(step, deps));
        await expect.poll(() => ses.calls.length).toBe(1);
      } else {
        await expect(processOutboundRequest(m, crashingAfter(step, deps))).rejects.toThrow(Crash);
      }
      // A redelivery inside the lease cannot tell a crash from a slow worker: it waits.
      expect(await processOutboundRequest(m, deps)).toMatchObject({ status: "retry", reason: "in-flight" });
      clock.now = new Date(clock.now.getTime() + LEASE_MS + 1);
      expect(await processOutboundRequest(m, deps)).toEqual({ status: "unknown", requestId: m.requestId });
      expect(await processOutboundRequest(m, deps)).toEqual({ status: "unknown", requestId: m.requestId });
      expect(ses.calls).toHaveLength(calls);
      expect(await stateOf(m.requestId)).toBe("unknown");
      const uncertain = await listUncertainSends(
        makeClients(emu.resources).dynamo,
        emu.resources.tables.state,
        {
          now: clock.now,
        },
      );
      expect(uncertain.map((u) => u.requestId)).toContain(m.requestId);
      const flagged = logger.lines.filter((l) => l.message === UNKNOWN_OUTCOME_LOG);
      expect(flagged).toHaveLength(1);
      expect(flagged[0]).toMatchObject({
        level: "error",
        extra: {
          requestId: m.requestId,
          reason: "crashed-while-sending",
          rawKey: `outbound/${encodeURIComponent(m.requestId)}.eml`,
        },
      });
    },
  );

  it("send-path latency excluding SES (median of 15 sequential sends)", async () => {
    const { ses, deps } = setup();
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const out = await processOutboundRequest(reply(), deps);
      times.push(performance.now() - t0);
      expect(out.status).toBe("done");
    }
    expect(ses.calls).toHaveLength(15);
    times.sort((a, b) => a - b);
    console.log(
      `outbound send path (emulators, fake SES): median ${times[7]?.toFixed(1)} ms, p90 ${times[13]?.toFixed(1)} ms, min ${times[0]?.toFixed(1)} ms`,
    );
  });
});

describe("outbound attachments resolve only in the agent's own mailbox and thread (G12)", () => {
  const inboundWith = (agent: string, id: string, threadId: string, att: { id: string; key: string }) =>
    stores.messages.put({
      agent,
      id,
      direction: "in",
      threadId,
      headerMessageId: `${id}@example.com`,
      inReplyTo: null,
      references: [],
      from: "alice@example.com",
      to: [agent],
      cc: [],
      subject: "files",
      at: "2026-11-29T09:30:00.000Z",
      bodyKey: `mail/${agent}/${id}/body.txt`,
      hasHtmlOnly: false,
      attachments: [{ ...att, filename: `${att.id}.txt`, contentType: "text/plain", size: 5 }],
      hop: 0,
    });

  beforeAll(async () => {
    for (const key of [
      "files/helpdesk@agents.example.com/att-in",
      "files/sales@agents.example.com/att-sales",
    ])
      await stores.blobs.put(key, "hello", "text/plain");
    await inboundWith(HELPDESK.address, "20261129T093000000-000000a1", THREAD, {
      id: "att-in",
      key: "files/helpdesk@agents.example.com/att-in",
    });
    await inboundWith(HELPDESK.address, "20261129T093000000-000000a2", "other-thread", {
      id: "att-other-thread",
      key: "files/helpdesk@agents.example.com/att-in",
    });
    await inboundWith("sales@agents.example.com", "20261129T093000000-000000a3", "sales-thread", {
      id: "att-sales",
      key: "files/sales@agents.example.com/att-sales",
    });
    // A helpdesk record whose key points into another agent's files: refused, not followed.
    await inboundWith(HELPDESK.address, "20261129T093000000-000000a4", THREAD, {
      id: "att-evil",
      key: "files/sales@agents.example.com/att-sales",
    });
  });

  it("an attachment of the thread goes out", async () => {
    const { ses, deps } = setup();
    expect(await processOutboundRequest({ ...reply(), attachmentIds: ["att-in"] }, deps)).toMatchObject({
      status: "done",
    });
    const { email } = await readMail(ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.attachments.map((a) => a.filename)).toEqual(["att-in.txt"]);
  });

  it("a file the agent created in this thread (create_file) goes out", async () => {
    const mailbox = createMailbox({
      ...stores,
      files: stores.state,
      agent: HELPDESK.address,
      threadId: THREAD,
      runId: "run-x",
      scope: WHOLE,
    });
    const file = await mailbox.createFile({
      filename: "summary.md",
      contentType: "text/markdown",
      bytes: new TextEncoder().encode("# Q3"),
    });
    const { ses, deps } = setup();
    expect(await processOutboundRequest({ ...reply(), attachmentIds: [file.id] }, deps)).toMatchObject({
      status: "done",
    });
    const { email } = await readMail(ses.calls[0]?.raw ?? new Uint8Array());
    expect(email.attachments.map((a) => [a.filename, a.mimeType])).toEqual([["summary.md", "text/markdown"]]);
  });

  it.each(["att-sales", "att-other-thread", "att-evil", "no-such-id"])(
    "%s is not found and nothing is sent",
    async (id) => {
      const { ses, deps } = setup();
      expect(await processOutboundRequest({ ...reply(), attachmentIds: [id] }, deps)).toMatchObject({
        status: "failed",
        reason: "attachment-not-found",
      });
      expect(ses.calls).toHaveLength(0);
    },
  );
});
