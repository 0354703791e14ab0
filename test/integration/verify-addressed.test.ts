// Addressed, once (G2) and reply-all from signed headers (G9), through the real pipeline: a signed mail replayed
// to the agent by its recipient, the same signed message sent twice, a Cc added outside the signature, Bcc.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import PostalMime, { type Email } from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevKey } from "../../cli/local/dev-keys.ts";
import { composeDevMail, signWithDevKey } from "../../cli/local/dev-send.ts";
import type { LocalStack } from "../../cli/local/stack.ts";
import { makeStores, type Stores } from "../../shared/store/stores.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { replyOnce, startPipelineStack, waitFor } from "../helpers/pipeline-stack.ts";

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

/** Hand raw bytes to the SMTP intake as they are (no new signature): what a replayer does. */
async function relay(raw: Buffer, envelopeTo: string[], envelopeFrom = MALLORY): Promise<string> {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: stack.smtp.port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: envelopeFrom, to: envelopeTo }, raw });
    const id = /\bOk ([a-z0-9]{20,})\b/.exec(String(info.response))?.[1];
    if (!id) throw new Error("no SES id from the intake");
    return id;
  } finally {
    transport.close();
  }
}

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
    const raw = await signed({ from: CEO, to: [AGENT], cc: ["cfo@victim.example"], subject: "Team note" });
    const tampered = Buffer.concat([Buffer.from(`Cc: ${MALLORY}\r\n`), raw]);
    const id = await relay(tampered, [AGENT], CEO);
    expect(await decision(id)).toMatchObject({ verdict: "accept" });
    const reply = await waitFor("the reply-all", async () => {
      for (const f of outboxFiles()) {
        const m = await read(f);
        if (m.subject === "Re: Team note") return m;
      }
      return undefined;
    });
    expect(reply.to?.map((a) => a.address)).toEqual([CEO]);
    expect(reply.cc?.map((a) => a.address)).toEqual(["cfo@victim.example"]);
  });

  it("an agent that opts in to Bcc delivery accepts mail that does not name it", async () => {
    const raw = await signed({ from: CEO, to: ["someone@victim.example"], subject: "Bcc copy" });
    const id = await relay(raw, [BCC_AGENT], CEO);
    expect(await decision(id, BCC_AGENT)).toMatchObject({ verdict: "accept" });
  });
});
