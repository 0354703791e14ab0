// Addressed, once (G2) and reply-all from signed headers (G9), through the real pipeline: a signed mail replayed
// to the agent by its recipient, the same signed message sent twice, a Cc added outside the signature, Bcc.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import PostalMime, { type Email } from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevKey } from "../../cli/local/dev-keys.ts";
import { composeDevMail, signWithDevKey } from "../../cli/local/dev-send.ts";
import type { LocalStack } from "../../cli/local/stack.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import {
  relayRaw,
  replyOnce,
  type ShapedMail,
  signWithDevKeyAs,
  startPipelineStack,
  waitFor,
} from "../helpers/pipeline-stack.ts";

const AGENT = "helpdesk@agents.example.net";
const BCC_AGENT = "archive@agents.example.net";
const CEO = "ceo@victim.example";
const MALLORY = "mallory@evil.example";
let stack: LocalStack;
let stores: Stores;
let dir: string;

const outboxFiles = () =>
  existsSync(stack.outboxDir) ? readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml")) : [];
const read = (f: string): Promise<Email> => PostalMime.parse(readFileSync(join(stack.outboxDir, f)));

/** A mail signed by `from`'s domain (the dev key), with the header fields as given. */
async function signed(o: { from: string; to: string[]; cc?: string[]; subject: string }): Promise<Buffer> {
  const domain = o.from.slice(o.from.indexOf("@") + 1);
  const key = ensureDevKey(dir, stack.zoneFile, domain);
  if (!key.ok) throw new Error(key.reason);
  let raw = await composeDevMail({
    from: o.from,
    to: o.to,
    subject: o.subject,
    body: "Please wire the money.",
  });
  if (o.cc)
    raw = Buffer.from(raw.toString("latin1").replace(/^To: /m, `Cc: ${o.cc.join(", ")}\r\nTo: `), "latin1");
  return signWithDevKey(raw, key.key, new Date());
}

/** A mail signed by `from`'s dev key with exactly the header fields `h` in h= (signers differ: docs/gate.md). */
const signedWith = (h: string[], o: Omit<ShapedMail, "body">): Promise<Buffer> =>
  signWithDevKeyAs(stack, dir, h, { ...o, body: "Please send me the board pack." });

/** Hand raw bytes to the SMTP intake as they are (no new signature): what a replayer does. */
const relay = (raw: Buffer, envelopeTo: string[], envelopeFrom = MALLORY): Promise<string> =>
  relayRaw(stack, raw, { to: envelopeTo, from: envelopeFrom });

const decision = (sesMessageId: string, recipient = AGENT) =>
  waitFor(`the inbound decision for ${sesMessageId}`, async () => {
    const r = await stores.inbound.get(sesMessageId, recipient);
    return r?.status === "done" ? r : undefined;
  });

beforeAll(async () => {
  ({ stack, dir } = await startPipelineStack({
    ...replyOnce("Noted."),
  }));
  stores = makeStores(stack.clients, stack.resources, recordingLogger());
  await stores.admin.putAgent({ address: AGENT, name: "Help Desk", model: "demo" });
  await stores.admin.putAgent({ address: BCC_AGENT, name: "Archive", model: "demo", acceptBcc: true });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe("addressed, once (G2), in the local stack", () => {
  it("a mail the CEO signed for mallory, replayed by mallory to the agent, is refused as not-addressed", async () => {
    const raw = await signed({ from: CEO, to: [MALLORY], subject: "Wire" });
    const before = outboxFiles().length;
    const id = await relay(raw, [AGENT]);
    expect(await decision(id)).toMatchObject({ verdict: "refuse", reason: "not-addressed", sender: CEO });
    // The proven sender (the CEO) is told to put the agent in To or Cc; nothing else is sent, no run starts.
    const notice = await waitFor("the notice", async () => {
      for (const f of outboxFiles().slice(before)) {
        const m = await read(f);
        if (m.subject?.includes("not in To or Cc")) return m;
      }
      return undefined;
    });
    expect(notice.to?.map((a) => a.address)).toEqual([CEO]);
  });

  it("one signed message starts at most one run: the same bytes sent again are dropped as replayed", async () => {
    const raw = await signed({ from: CEO, to: [AGENT], subject: "Once only" });
    const first = await relay(raw, [AGENT], CEO);
    expect(await decision(first)).toMatchObject({ verdict: "accept" });
    const second = await relay(raw, [AGENT]);
    expect(await decision(second)).toMatchObject({ verdict: "drop", reason: "replayed" });
    const replies = async () => {
      let n = 0;
      for (const f of outboxFiles()) if ((await read(f)).subject === "Re: Once only") n++;
      return n;
    };
    await waitFor("the one reply", async () => ((await replies()) === 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    expect(await replies()).toBe(1);
  });

  it("reply-all writes only to the To and Cc the signature covers, never to a Cc added outside it", async () => {
    // a Cc the signer did not put in h= is anyone's word: it is not a recipient of the agent's reply-all
    const unsignedCc = await signedWith(["from", "to", "subject", "date", "message-id"], {
      from: CEO,
      to: [AGENT, "cfo@victim.example"],
      cc: [MALLORY],
      subject: "Team note",
      messageId: "<team-1@victim.example>",
    });
    const id = await relay(unsignedCc, [AGENT], CEO);
    expect(await decision(id)).toMatchObject({ verdict: "accept" });
    const reply = await waitFor("the reply-all", async () => {
      for (const f of outboxFiles()) {
        const m = await read(f);
        if (m.subject === "Re: Team note") return m;
      }
      return undefined;
    });
    expect(reply.to?.map((a) => a.address)).toEqual([CEO, "cfo@victim.example"]);
    expect(reply.cc ?? []).toEqual([]);
    // a Cc added on top of a signed one is a second instance: the mail is refused
    const raw = await signed({ from: CEO, to: [AGENT], cc: ["cfo@victim.example"], subject: "Team note 2" });
    const tampered = Buffer.concat([Buffer.from(`Cc: ${MALLORY}\r\n`), raw]);
    expect(await decision(await relay(tampered, [AGENT], CEO))).toMatchObject({
      verdict: "refuse",
      reason: "header-duplicated",
    });
  });

  it("an agent that opts in to Bcc delivery accepts mail that does not name it", async () => {
    const raw = await signed({ from: CEO, to: ["someone@victim.example"], subject: "Bcc copy" });
    const id = await relay(raw, [BCC_AGENT], CEO);
    expect(await decision(id, BCC_AGENT)).toMatchObject({ verdict: "accept" });
  });
});

describe("only signed header instances count, in the local stack", () => {
  const threadOf = async (sesMessageId: string) => {
    const d = await decision(sesMessageId);
    const m = d.messageId ? await stores.messages.get(AGENT, d.messageId) : null;
    if (!m) throw new Error(`no stored message for ${sesMessageId}`);
    return m.threadId;
  };
  const prepend = (lines: string[], raw: Buffer) =>
    Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n`), raw]);
  const ALL = ["from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"];
  const NO_THREADING = ["from", "to", "cc", "subject", "date", "message-id"];

  it("mallory, in the signed Cc, re-sends the CEO's mail with a Message-ID on top: refused, no second run", async () => {
    const raw = await signedWith(ALL, {
      from: CEO,
      to: [AGENT],
      cc: [MALLORY],
      subject: "Salaries",
      messageId: "<salaries-1@victim.example>",
    });
    expect(await decision(await relay(raw, [AGENT], CEO))).toMatchObject({ verdict: "accept" });
    for (const added of [
      ["Message-ID: <fresh-1@evil.example>"],
      ["Date: Mon, 30 Nov 2026 09:00:00 +0000"],
      ["Message-ID: <fresh-2@evil.example>", "In-Reply-To: <salaries-1@victim.example>"],
      ["References: <salaries-1@victim.example>", "Message-ID: <fresh-3@evil.example>"],
    ]) {
      const replay = await decision(await relay(prepend(added, raw), [AGENT]));
      // refused before the From was read: the record names no sender (G4, G6: nothing proven, nobody told)
      expect(replay).toMatchObject({ verdict: "refuse", reason: "header-duplicated", sender: null });
    }
    const replies = async () => {
      let n = 0;
      for (const f of outboxFiles()) if ((await read(f)).subject === "Re: Salaries") n++;
      return n;
    };
    await waitFor("the one reply", async () => ((await replies()) === 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1000));
    expect(await replies()).toBe(1);
  });

  it("prepended In-Reply-To/References the signer did not sign never graft a mail into the CEO's private thread", async () => {
    const privateMail = await signedWith(ALL, {
      from: CEO,
      to: [AGENT],
      subject: "Private: acquisition",
      messageId: "<private-1@victim.example>",
    });
    const privateThread = await threadOf(await relay(privateMail, [AGENT], CEO));
    // the CEO's next mail (mallory in Cc) is signed without threading headers; mallory races it in first with
    // the private thread named on top
    const next = await signedWith(NO_THREADING, {
      from: CEO,
      to: [AGENT],
      cc: [MALLORY],
      subject: "Lunch",
      messageId: "<lunch-1@victim.example>",
    });
    const grafted = prepend(
      ["In-Reply-To: <private-1@victim.example>", "References: <private-1@victim.example>"],
      next,
    );
    const raced = await relay(grafted, [AGENT]);
    expect(await decision(raced)).toMatchObject({ verdict: "accept", sender: CEO });
    const thread = await threadOf(raced);
    expect(thread).not.toBe(privateThread);
    // the thread holds the raced mail alone (and, once sent, the agent's answer to it): none of the private mail
    const inThread = await stores.messages.listByThread(AGENT, thread);
    expect(inThread.filter((m) => m.direction === "in").map((m) => m.headerMessageId)).toEqual([
      "lunch-1@victim.example",
    ]);
    // the CEO's own copy arrives second: the same signature, dropped as a replay
    expect(await decision(await relay(next, [AGENT], CEO))).toMatchObject({
      verdict: "drop",
      reason: "replayed",
    });
    // signed by a signer that covers them, the same headers do join (the CEO is a participant)
    const reply = await signedWith(ALL, {
      from: CEO,
      to: [AGENT],
      subject: "Re: Private: acquisition",
      messageId: "<private-2@victim.example>",
      extra: ["In-Reply-To: <private-1@victim.example>", "References: <private-1@victim.example>"],
    });
    expect(await threadOf(await relay(reply, [AGENT], CEO))).toBe(privateThread);
  });

  it("a signed To that is an encoded-word naming the agent does not address it", async () => {
    const raw = await signedWith(ALL, {
      from: MALLORY,
      to: ["=?UTF-8?Q?Mallory_=3Chelpdesk=40agents.example.net=3E?="],
      subject: "Encoded",
      messageId: "<enc-1@evil.example>",
    });
    expect(await decision(await relay(raw, [AGENT]))).toMatchObject({
      verdict: "refuse",
      reason: "not-addressed",
    });
  });

  it("mail proven to come from the agent itself is dropped as self-sender, and nothing is sent", async () => {
    // What this mail could cause: a reply in its thread, or a notice to the agent itself (earlier tests' replies may
    // still be arriving, so the outbox is searched for these, not counted).
    const caused = async () => {
      const found: string[] = [];
      for (const f of outboxFiles()) {
        const m = await read(f);
        if (m.subject?.includes("Loop") || m.to?.some((a) => a.address === AGENT)) found.push(f);
      }
      return found;
    };
    const raw = await signedWith(ALL, {
      from: AGENT,
      to: [AGENT],
      subject: "Loop",
      messageId: "<self-1@agents.example.net>",
    });
    expect(await decision(await relay(raw, [AGENT], AGENT))).toMatchObject({
      verdict: "drop",
      reason: "self-sender",
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await caused()).toEqual([]);
  });
});
