import { beforeAll, describe, expect, it } from "vitest";
import { AGENT } from "../../fakes/builders.ts";
import {
  buildMessage,
  type MessageParts,
  resolverFor,
  signWith,
  type TestKeys,
  testKeys,
  zoneFor,
} from "../../helpers/dkim-test-keys.ts";
import { verifyWorld } from "../../helpers/verify-world.ts";

/**
 * The replay family: only signed header instances count. Mallory was in the signed Cc of the CEO's
 * mail to the agent; she re-sends it with headers added on top. A DKIM signature covers the bottom-most
 * instance of each field h= names (RFC 6376 §5.4.2), so anything she adds is unproven: a second instance of a
 * single-instance field refuses the mail, an unsigned threading field is read as absent, and the replay key is
 * the proving signature, so the same signature never starts a second run.
 */

const CEO = "The CEO <ceo@example.com>";
const PRIVATE = "<private-1@example.com>";
/** Every field the signer puts in h= when it signs threading headers (mailauth's default list does). */
const WITH_THREADING = ["from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"];
/** A signer that leaves threading headers out of h=, as some do (docs/gate.md). */
const WITHOUT_THREADING = ["from", "to", "cc", "subject", "date", "message-id"];

let keys: TestKeys;
let resolver: ReturnType<typeof resolverFor>;
beforeAll(async () => {
  keys = await testKeys();
  resolver = resolverFor(zoneFor(keys, ["example.com"]));
});

const sign = (parts: MessageParts, headers?: string[]) =>
  signWith(keys, "rsa2048", buildMessage(parts), { domain: "example.com", ...(headers ? { headers } : {}) });
const prepend = (lines: string[], raw: Buffer) =>
  Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n`), raw]);

/** A world where the CEO already has a private thread with the agent (one mail, Message-ID PRIVATE). */
async function withPrivateThread() {
  const w = verifyWorld({ resolver });
  const [first] = await w.receive(await sign({ from: CEO, messageId: PRIVATE, subject: "Board pack" }));
  const privateThread = w.runs.rows.get(String(first?.runId))?.threadId;
  if (!privateThread) throw new Error("no private thread");
  return { w, privateThread };
}

const threadOfRun = (w: ReturnType<typeof verifyWorld>, runId: string | undefined) =>
  w.runs.rows.get(String(runId))?.threadId;

/** The CEO's new mail to the agent with mallory in the signed Cc. */
const ceoMail = (headers: string[], extra: Partial<MessageParts> = {}) =>
  sign(
    { from: CEO, messageId: "<new-1@example.com>", headers: ["Cc: mallory@example.com"], ...extra },
    headers,
  );

describe("a replayed mail with headers added on top", () => {
  it.each([
    ["a prepended Message-ID", ["Message-ID: <fresh@evil.example>"]],
    ["a prepended Date", ["Date: Mon, 30 Nov 2026 09:00:00 +0000"]],
    ["Message-ID then In-Reply-To/References", ["Message-ID: <f@evil.example>", `In-Reply-To: ${PRIVATE}`]],
    ["In-Reply-To/References then Message-ID", [`References: ${PRIVATE}`, "Message-ID: <f@evil.example>"]],
  ])("%s is refused as header-duplicated, before any run, and said nowhere", async (_name, added) => {
    const { w } = await withPrivateThread();
    const original = await ceoMail(WITH_THREADING, {
      headers: ["Cc: mallory@example.com", `References: <a@example.com>`, "In-Reply-To: <a@example.com>"],
    });
    const [delivered] = await w.receive(original);
    expect(delivered?.verdict).toBe("accept");
    const runsBefore = w.runs.rows.size;
    const [replayed] = await w.receive(prepend(added, original));
    expect(replayed).toMatchObject({ verdict: "refuse", reason: "header-duplicated" });
    expect(w.runs.rows.size).toBe(runsBefore);
    const line = w.logger.lines.filter((e) => e.message === "inbound decision").at(-1);
    expect(line?.extra).toMatchObject({ reason: "header-duplicated", detail: expect.any(String) });
  });

  it.each([
    ["Content-Type", "Content-Type: multipart/mixed; boundary=relay-chosen"],
    ["MIME-Version", "MIME-Version: 1.0"],
    ["Content-Transfer-Encoding", "Content-Transfer-Encoding: base64"],
  ])(
    "a prepended top-level %s is refused as header-duplicated (RFC 2045: one per entity)",
    async (name, line) => {
      const { w } = await withPrivateThread();
      const original = await ceoMail(WITH_THREADING, {
        headers: [
          "Cc: mallory@example.com",
          "MIME-Version: 1.0",
          "Content-Type: text/plain; charset=utf-8",
          "Content-Transfer-Encoding: 7bit",
        ],
      });
      const [replayed] = await w.receive(prepend([line], original));
      expect(replayed).toMatchObject({ verdict: "refuse", reason: "header-duplicated" });
      const logged = w.logger.lines.filter((e) => e.message === "inbound decision").at(-1);
      expect(logged?.extra).toMatchObject({ detail: name.toLowerCase() });
    },
  );

  it("a signer that signed the threading headers: prepended ones make two instances, refused", async () => {
    const { w } = await withPrivateThread();
    const original = await ceoMail(WITH_THREADING, {
      headers: ["Cc: mallory@example.com", "In-Reply-To: <a@example.com>", "References: <a@example.com>"],
    });
    const [replayed] = await w.receive(
      prepend([`In-Reply-To: ${PRIVATE}`, `References: ${PRIVATE}`], original),
    );
    expect(replayed).toMatchObject({ verdict: "refuse", reason: "header-duplicated", status: "processed" });
  });

  it("a signer that did not sign them: the replay is the same signature, dropped as replayed", async () => {
    const { w, privateThread } = await withPrivateThread();
    const original = await ceoMail(WITHOUT_THREADING);
    const [delivered] = await w.receive(original);
    expect(threadOfRun(w, delivered?.runId)).not.toBe(privateThread);
    const grafted = prepend([`In-Reply-To: ${PRIVATE}`, `References: ${PRIVATE}`], original);
    const [replayed] = await w.receive(grafted);
    expect(replayed).toMatchObject({ verdict: "drop", reason: "replayed" });
  });

  it("the replay key is the signature: an unsigned Message-ID replaced by the replayer is still the same mail", async () => {
    const { w } = await withPrivateThread();
    const original = await ceoMail(["from", "to", "cc", "subject", "date"]);
    const [delivered] = await w.receive(original);
    expect(delivered?.verdict).toBe("accept");
    const replaced = Buffer.from(
      original.toString("latin1").replace("<new-1@example.com>", "<other@evil.example>"),
      "latin1",
    );
    const [replayed] = await w.receive(replaced);
    expect(replayed).toMatchObject({ verdict: "drop", reason: "replayed" });
  });

  it("a replay that arrives first still cannot graft: unsigned threading headers are read as absent, and logged", async () => {
    const { w, privateThread } = await withPrivateThread();
    // mallory got the CEO's mail before the agent did, and races it in with the private thread named on top
    const original = await ceoMail(WITHOUT_THREADING);
    const [raced] = await w.receive(prepend([`In-Reply-To: ${PRIVATE}`, `References: ${PRIVATE}`], original));
    expect(raced?.verdict).toBe("accept");
    const thread = threadOfRun(w, raced?.runId);
    expect(thread).not.toBe(privateThread);
    expect(await w.messages.listByThread(AGENT, String(thread))).toHaveLength(1);
    const unsigned = w.logger.lines.find((e) => e.message === "threading headers unsigned");
    expect(unsigned?.extra).toMatchObject({
      reason: "threading-unsigned",
      fields: ["in-reply-to", "references"],
      threadId: thread,
    });
    // and the CEO's own copy, arriving second, is the same signature: replayed
    const [own] = await w.receive(original);
    expect(own).toMatchObject({ verdict: "drop", reason: "replayed" });
  });

  it("an unsigned Message-ID never names a thread: a race with a private thread's Message-ID starts a new one", async () => {
    const { w, privateThread } = await withPrivateThread();
    const noMessageId = ["from", "to", "cc", "subject", "date"];
    const original = await ceoMail(noMessageId, { messageId: PRIVATE });
    const [raced] = await w.receive(original);
    expect(raced?.verdict).toBe("accept");
    expect(threadOfRun(w, raced?.runId)).not.toBe(privateThread);
    const unsigned = w.logger.lines.find((e) => e.message === "threading headers unsigned");
    expect(unsigned?.extra).toMatchObject({ fields: ["message-id"] });
  });

  it("signed threading headers from a participant still join the thread they name", async () => {
    const { w, privateThread } = await withPrivateThread();
    const reply = await sign(
      {
        from: CEO,
        messageId: "<reply-1@example.com>",
        headers: [`In-Reply-To: ${PRIVATE}`, `References: ${PRIVATE}`],
      },
      WITH_THREADING,
    );
    const [joined] = await w.receive(reply);
    expect(threadOfRun(w, joined?.runId)).toBe(privateThread);
    expect(w.logger.lines.some((e) => e.message === "threading headers unsigned")).toBe(false);
  });
});
