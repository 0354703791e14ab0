// Mail the world actually sends, through the real pipeline (SMTP intake → verify → agent-step → outbound → SES
// capture): a default agent answers mail signed as Exchange Online signs it (To, Cc and threading unsigned), the
// sender's Outlook reply joins the thread by naming the Message-ID SES gave our answer, and an outside sender's
// signed Cc at the operator's own domain never receives the answer (the audience never widens by a claim).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sealMessage } from "mailauth/lib/arc/index.js";
import PostalMime, { type Email } from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevKey } from "../../cli/local/dev-keys.ts";
import type { LocalStack } from "../../cli/local/stack.ts";
import { acceptedIds } from "../../shared/intake/store-accepted.ts";
import { signMessage } from "../../shared/mail/dkim-sign.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { timeline as buildTimeline } from "../../shared/trace/timeline.ts";
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
const ALICE = "alice@contoso.example";
const MALLORY = "mallory@evil.example";
const CFO = "cfo@example.net";
const LIST = "lists.example.org";
const LIST_AGENT = "lists@agents.example.net";
/** Exchange Online and Outlook.com sign exactly these (docs/gate.md's provider table). */
const MICROSOFT = ["from", "date", "subject", "message-id", "content-type", "mime-version"];
/** Gmail signs To, Cc and threading. */
const GMAIL = ["from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"];

let stack: LocalStack;
let stores: Stores;
let dir: string;

const outboxFiles = () =>
  existsSync(stack.outboxDir) ? readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml")) : [];
const read = (f: string): Promise<Email> => PostalMime.parse(readFileSync(join(stack.outboxDir, f)));

/** Signed in the shape `h` with a plain-text MIME header, as the providers write it. */
const sign = (h: string[], o: ShapedMail): Promise<Buffer> =>
  signWithDevKeyAs(stack, dir, h, {
    ...o,
    extra: ["MIME-Version: 1.0", "Content-Type: text/plain; charset=us-ascii", ...(o.extra ?? [])],
  });

const relay = (raw: Buffer, envelopeTo: string[], envelopeFrom: string): Promise<string> =>
  relayRaw(stack, raw, { to: envelopeTo, from: envelopeFrom });

const decision = (sesMessageId: string, recipient = AGENT) =>
  waitFor(`the inbound decision for ${sesMessageId}`, async () => {
    const r = await stores.inbound.get(sesMessageId, recipient);
    return r?.status === "done" ? r : undefined;
  });

/** The reply in the outbox whose subject is `subject`, with the file's raw Message-ID. */
const replyTo = (subject: string) =>
  waitFor(`the reply "${subject}"`, async () => {
    for (const f of outboxFiles()) {
      const m = await read(f);
      if (m.subject === subject) return m;
    }
    return undefined;
  });

beforeAll(async () => {
  const base = replyOnce("Noted, thank you.");
  ({ stack, dir } = await startPipelineStack({
    ...base,
    // The operator's staff read mail at example.net; the agents live at agents.example.net.
    config: {
      ...base.config,
      outbound: { ownDomains: ["example.net"] },
      senderProof: { trustedArcSealers: [LIST] },
    },
  }));
  stores = makeStores(stack.clients, stack.resources, recordingLogger());
  await stores.admin.putAgent({ address: AGENT, name: "Help Desk", model: "demo" });
  await stores.admin.putAgent({ address: LIST_AGENT, name: "Lists", model: "demo", acceptListMail: true });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe("Exchange Online / Outlook.com mail, default agent", () => {
  it("is answered (addressed by the envelope, narrowed to the sender), and the Outlook reply joins the thread", async () => {
    const first = await sign(MICROSOFT, {
      from: ALICE,
      to: [AGENT, "bob@contoso.example"],
      subject: "Order 4471 arrived damaged",
      messageId: "<DM6PR01MB0001.namprd01.prod.outlook.com>",
      body: "The lamp in order 4471 arrived with a cracked base.",
    });
    const firstId = await relay(first, [AGENT], ALICE);
    const d1 = await decision(firstId);
    expect(d1).toMatchObject({ verdict: "accept" });
    const m1 = d1.messageId ? await stores.messages.get(AGENT, d1.messageId) : null;
    expect(m1).toMatchObject({ addressing: "envelope", threadedBy: "none", to: [], cc: [] });
    // narrowed: the unsigned To named bob, who gets nothing
    const answer = await replyTo("Re: Order 4471 arrived damaged");
    expect(answer.to?.map((a) => a.address)).toEqual([ALICE]);
    expect(answer.cc ?? []).toEqual([]);
    expect(answer.messageId).toMatch(/@email\.amazonses\.com>$/);
    // the trace says so beside round 1 (what `runs show` and the console print)
    const firstRun = acceptedIds(firstId, AGENT, new Date().toISOString()).runId;
    const timeline = buildTimeline(await stores.runEvents.list(firstRun));
    expect(timeline.map((i) => i.text).join("\n")).toContain(
      "addressing unsigned (by the envelope): writes to the sender only",
    );

    // Alice replies from Outlook: In-Reply-To/References unsigned, naming SES's Message-ID of our answer
    const second = await sign(MICROSOFT, {
      from: ALICE,
      to: ["Help Desk <helpdesk@agents.example.net>"],
      subject: "RE: Order 4471 arrived damaged",
      messageId: "<DM6PR01MB0002.namprd01.prod.outlook.com>",
      extra: [`In-Reply-To: ${answer.messageId}`, `References: ${answer.messageId}`],
      body: "Yes, that one. Please send a replacement.",
    });
    const secondId = await relay(second, [AGENT], ALICE);
    const d2 = await decision(secondId);
    expect(d2).toMatchObject({ verdict: "accept" });
    const m2 = d2.messageId ? await stores.messages.get(AGENT, d2.messageId) : null;
    expect(m2).toMatchObject({ addressing: "reply", threadedBy: "own-message-id", threadId: m1?.threadId });
    // the second run's model saw the first mail (thread memory), inside the fence
    const { runId } = acceptedIds(secondId, AGENT, new Date().toISOString());
    const transcript = await waitFor("the second run's transcript", async () => {
      const t = await stores.blobs.getText(`transcripts/${runId}.json`);
      return t?.includes("Please send a replacement") ? t : undefined;
    });
    expect(transcript).toContain("cracked base");
  });

  it("a stale Outlook mail (signed Date over an hour old) is refused as not-addressed, and the sender is told", async () => {
    const key = ensureDevKey(dir, stack.zoneFile, "contoso.example");
    if (!key.ok) throw new Error(key.reason);
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    const raw = await signMessage(
      [
        `From: ${ALICE}`,
        `To: ${AGENT}`,
        "Subject: Old news",
        `Date: ${old.toUTCString()}`,
        "Message-ID: <old-1@contoso.example>",
        "",
        "Replayed two hours later.",
        "",
      ].join("\r\n"),
      {
        domain: "contoso.example",
        selector: key.key.selector,
        privateKeyPem: key.key.privateKeyPem,
        headers: MICROSOFT,
        signTime: old,
      },
    );
    expect(await decision(await relay(raw, [AGENT], MALLORY))).toMatchObject({
      verdict: "refuse",
      reason: "not-addressed",
    });
  });
});

describe("the audience never widens by a claim", () => {
  it("an outside sender's signed Cc at the operator's own domain gets nothing; the answer goes to the rest", async () => {
    const raw = await sign(GMAIL, {
      from: MALLORY,
      to: [AGENT],
      cc: [CFO, "partner@evil.example"],
      subject: "Invoice link for the CFO",
      messageId: "<cc-claim-1@evil.example>",
      body: "Please reply to everyone with the payment link.",
    });
    expect(await decision(await relay(raw, [AGENT], MALLORY))).toMatchObject({ verdict: "accept" });
    const answer = await replyTo("Re: Invoice link for the CFO");
    const everyone = [...(answer.to ?? []), ...(answer.cc ?? []), ...(answer.bcc ?? [])].map(
      (a) => a.address,
    );
    expect(everyone).toContain(MALLORY);
    expect(everyone).toContain("partner@evil.example");
    expect(everyone).not.toContain(CFO);
  });
});

describe("list mail through ARC (RFC 8617)", () => {
  /** Alice's signed mail to a list, as the list passes it on: Subject tagged, footer added, sealed by `sealer`. */
  async function throughList(sealer: string, subject: string): Promise<Buffer> {
    const signed = await sign(GMAIL, {
      from: ALICE,
      to: [`team@${sealer}`],
      subject,
      messageId: `<${subject.replace(/\W/g, "")}@contoso.example>`,
      body: "Has anyone seen the lamp order arrive?",
    });
    const rewritten = Buffer.from(
      `List-Id: <team.${sealer}>\r\n${signed
        .toString("latin1")
        .replace(/^Subject: /m, "Subject: [team] ")}-- \r\nteam mailing list\r\n`,
      "latin1",
    );
    const key = ensureDevKey(dir, stack.zoneFile, sealer);
    if (!key.ok) throw new Error(key.reason);
    const set = await sealMessage(rewritten, {
      signingDomain: sealer,
      selector: key.key.selector,
      privateKey: key.key.privateKeyPem,
      authResults: `${sealer}; dkim=pass header.d=contoso.example`,
      signTime: new Date(),
    });
    return Buffer.concat([set, rewritten]);
  }

  it("through a trusted sealer it is answered, to the author only", async () => {
    const raw = await throughList(LIST, "Lamp orders");
    const d = await decision(await relay(raw, [LIST_AGENT], `bounces@${LIST}`), LIST_AGENT);
    expect(d).toMatchObject({ verdict: "accept" });
    const m = d.messageId ? await stores.messages.get(LIST_AGENT, d.messageId) : null;
    expect(m).toMatchObject({ addressing: "forwarded", from: ALICE, to: [], cc: [] });
    const answer = await replyTo("Re: [team] Lamp orders");
    expect([...(answer.to ?? []), ...(answer.cc ?? [])].map((a) => a.address)).toEqual([ALICE]);
  });

  it("through a sealer the operator does not trust it is refused, naming the sealer", async () => {
    const raw = await throughList("other-list.example", "Lamp orders again");
    const d = await decision(await relay(raw, [LIST_AGENT], "bounces@other-list.example"), LIST_AGENT);
    expect(d).toMatchObject({ verdict: "refuse", reason: "arc-untrusted-sealer" });
    expect(d.detail).toContain("other-list.example");
  });
});
