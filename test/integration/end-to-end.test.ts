import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import PostalMime from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import type { LocalStack } from "../../cli/local/stack.ts";
import { makeStores } from "../../shared/store/stores.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { replyOnce, startPipelineStack, waitFor } from "../helpers/pipeline-stack.ts";

const AGENT = "helpdesk@agents.example.net";
const SENDER = "carol@customer.example";
let stack: LocalStack;
let dir: string;

const outbox = () =>
  existsSync(stack.outboxDir) ? readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml")) : [];

beforeAll(async () => {
  ({ stack, dir } = await startPipelineStack({
    ...replyOnce("Thanks, we are on it."),
  }));
  const stores = makeStores(stack.clients, stack.resources, recordingLogger());
  await stores.admin.putAgent({
    address: AGENT,
    name: "Help Desk",
    model: "demo",
    instructions: "Be brief.",
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe("end to end in the local stack", () => {
  it("a signed inbound mail gets a threaded reply in the outbox, from the agent, stamped", async () => {
    const sent = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: SENDER,
      to: [AGENT],
      subject: "Where is my order?",
      body: "Order 1234 has not arrived.",
      port: stack.smtp.port,
    });
    if (!sent.ok) throw new Error(`dev send failed: ${sent.reason}`);
    const file = await waitFor("the reply in the outbox", () => outbox()[0]);
    const raw = readFileSync(join(stack.outboxDir, file));
    const reply = await PostalMime.parse(raw);
    const header = (name: string) => reply.headers.find((h) => h.key === name)?.value;
    expect(reply.from?.address).toBe(AGENT);
    expect(reply.from?.name).toBe("Help Desk");
    expect(reply.to?.map((a) => a.address)).toEqual([SENDER]);
    expect(reply.subject).toBe("Re: Where is my order?");
    expect(reply.inReplyTo).toBe(sent.messageId);
    expect(header("references")).toContain(sent.messageId);
    expect(header("x-postern-recursion")).toBe("1");
    expect(header("auto-submitted")).toBe("auto-replied");
    expect(reply.text?.trim()).toBe("Thanks, we are on it.");
  });

  it("an unsigned mail is refused without a reply or a notice", async () => {
    const before = outbox().length;
    const stores = makeStores(stack.clients, stack.resources, recordingLogger());
    const nodemailer = await import("nodemailer");
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: stack.smtp.port,
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({
      from: "mallory@evil.example",
      to: AGENT,
      subject: "hi",
      text: "unsigned",
      envelope: { from: "mallory@evil.example", to: [AGENT] },
    });
    const record = await waitFor("the refusal record", async () => {
      const recent = await stores.inbound.listRecent(50);
      return recent.find((r) => r.verdict === "refuse" && r.reason === "dkim-none");
    });
    expect(record).toMatchObject({ agent: AGENT, sender: null });
    await new Promise((r) => setTimeout(r, 1500));
    expect(outbox().length).toBe(before);
  });

  it("a reply to the agent's mail joins its thread: the id SES wrote is the one the thread index holds", async () => {
    const before = new Set(outbox());
    const first = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: SENDER,
      to: [AGENT],
      subject: "Threading check",
      body: "First message.",
      port: stack.smtp.port,
    });
    if (!first.ok) throw new Error(first.reason);
    const file = await waitFor("the agent's reply", () => outbox().find((f) => !before.has(f)));
    const reply = await PostalMime.parse(readFileSync(join(stack.outboxDir, file)));
    // As SES writes it: `<SES message id>@<region>.amazonses.com`, never the id our outbound composed.
    expect(reply.messageId).toMatch(/^<0100[0-9a-f-]+-000000@(email|[a-z0-9-]+)\.amazonses\.com>$/);
    const raw = Buffer.from(
      [
        `From: ${SENDER}`,
        `To: ${AGENT}`,
        "Subject: Re: Threading check",
        `Message-ID: <second-${Date.now()}@customer.example>`,
        `In-Reply-To: ${reply.messageId}`,
        // Only the id SES wrote: the thread must be found through it alone.
        `References: ${reply.messageId}`,
        "",
        "Second message.",
        "",
      ].join("\r\n"),
    );
    const second = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: SENDER,
      to: [AGENT],
      raw,
      port: stack.smtp.port,
    });
    if (!second.ok) throw new Error(second.reason);
    const stores = makeStores(stack.clients, stack.resources, recordingLogger());
    const threads = await waitFor("both messages stored", async () => {
      const inbound = await stores.inbound.listRecent(50);
      const ids = [first.sesMessageId, second.sesMessageId].map(
        (id) => inbound.find((r) => r.sesMessageId === id)?.messageId,
      );
      if (ids.some((id) => !id)) return undefined;
      const msgs = await Promise.all(ids.map((id) => stores.messages.get(AGENT, id as string)));
      return msgs.every(Boolean) ? msgs.map((m) => m?.threadId) : undefined;
    });
    expect(threads[0]).toBe(threads[1]);
  });
});
