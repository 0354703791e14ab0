import { beforeAll, describe, expect, it } from "vitest";
import { AGENT, signedMail } from "../../fakes/builders.ts";
import type { MessageParts } from "../../helpers/dkim-test-keys.ts";
import { verifyWorld } from "../../helpers/verify-world.ts";

/**
 * Thread membership (thread grafting) on the in-memory fakes, through processInbound with the real gate
 * and real DKIM: a mail joins the thread its headers name only when its proven sender already took part in it.
 */

let resolver: Awaited<ReturnType<typeof signedMail>>["resolver"];
const sign = async (parts: MessageParts) => (await signedMail(parts, "example.com")).raw;
beforeAll(async () => {
  ({ resolver } = await signedMail({}, "example.com"));
});

const CAROL = "Carol <carol@example.com>";
const MALLORY = "Mallory <mallory@example.com>";

async function threadOf(w: ReturnType<typeof verifyWorld>, runId: string | undefined): Promise<string> {
  const run = w.runs.rows.get(String(runId));
  const msg = await w.messages.get(AGENT, String(run?.messageId));
  expect(msg?.threadId).toBe(run?.threadId);
  return String(run?.threadId);
}

const replyTo = (id: string) => [`In-Reply-To: ${id}`, `References: ${id}`];

describe("thread membership", () => {
  it("a grafted reply naming Carol's Message-ID starts a new thread, logged with who tried which thread", async () => {
    const w = verifyWorld({ resolver });
    const [carol] = await w.receive(await sign({ from: CAROL, messageId: "<c1@example.com>" }));
    const carolThread = await threadOf(w, carol?.runId);
    const [mallory] = await w.receive(
      await sign({ from: MALLORY, messageId: "<m1@example.com>", headers: replyTo("<c1@example.com>") }),
    );
    const malloryThread = await threadOf(w, mallory?.runId);
    expect(malloryThread).not.toBe(carolThread);
    expect(await w.messages.listByThread(AGENT, malloryThread)).toHaveLength(1);
    // the stored mail says what happened: it joined nothing (its signed In-Reply-To named a thread it may not join)
    const stored = await w.messages.get(AGENT, String(w.runs.rows.get(String(mallory?.runId))?.messageId));
    expect(stored?.threadedBy).toBe("none");
    const refused = w.logger.lines.find((e) => e.message === "thread join refused");
    expect(refused?.extra).toMatchObject({
      reason: "thread-join-refused",
      sender: "mallory@example.com",
      namedThread: carolThread,
      threadId: malloryThread,
    });
  });

  it("Carol's own reply joins her thread; so does a reply from someone in her signed Cc", async () => {
    const w = verifyWorld({ resolver });
    const [first] = await w.receive(
      await sign({ from: CAROL, messageId: "<c1@example.com>", headers: ["Cc: dave@example.com"] }),
    );
    const thread = await threadOf(w, first?.runId);
    const [again] = await w.receive(
      await sign({ from: CAROL, messageId: "<c2@example.com>", headers: replyTo("<c1@example.com>") }),
    );
    expect(await threadOf(w, again?.runId)).toBe(thread);
    const joined = await w.messages.get(AGENT, String(w.runs.rows.get(String(again?.runId))?.messageId));
    expect(joined?.threadedBy).toBe("signed");
    const [dave] = await w.receive(
      await sign({
        from: "Dave <dave@example.com>",
        messageId: "<d1@example.com>",
        headers: replyTo("<c1@example.com>"),
      }),
    );
    expect(await threadOf(w, dave?.runId)).toBe(thread);
    expect(w.logger.lines.some((e) => e.message === "thread join refused")).toBe(false);
  });

  it("someone the agent wrote to in the thread may reply into it", async () => {
    const w = verifyWorld({ resolver });
    const [first] = await w.receive(await sign({ from: CAROL, messageId: "<c1@example.com>" }));
    const thread = await threadOf(w, first?.runId);
    // What the outbound records when the agent's reply in this thread also went to erin.
    await w.threads.addParticipants(AGENT, thread, ["erin@example.com"]);
    const [erin] = await w.receive(
      await sign({
        from: "Erin <erin@example.com>",
        messageId: "<e1@example.com>",
        headers: replyTo("<c1@example.com>"),
      }),
    );
    expect(await threadOf(w, erin?.runId)).toBe(thread);
  });

  it("a mail reusing Carol's Message-ID as its own does not land in her thread", async () => {
    const w = verifyWorld({ resolver });
    const [carol] = await w.receive(await sign({ from: CAROL, messageId: "<c1@example.com>" }));
    const carolThread = await threadOf(w, carol?.runId);
    const [mallory] = await w.receive(
      await sign({ from: MALLORY, messageId: "<c1@example.com>", body: "Same id, different mail.\r\n" }),
    );
    expect(await threadOf(w, mallory?.runId)).not.toBe(carolThread);
    expect(await w.messages.listByThread(AGENT, carolThread)).toHaveLength(1);
  });

  it("a redelivery keeps the thread the first delivery chose, graft or not", async () => {
    const w = verifyWorld({ resolver });
    await w.receive(await sign({ from: CAROL, messageId: "<c1@example.com>" }));
    const raw = await sign({
      from: MALLORY,
      messageId: "<m1@example.com>",
      headers: replyTo("<c1@example.com>"),
    });
    const [first] = await w.receive(raw, { sesMessageId: "ses-m" });
    const thread = await threadOf(w, first?.runId);
    // The inbound claim is what makes a whole redelivery a duplicate; clear it to replay the thread choice.
    w.inbound.records.clear();
    await w.receive(raw, { sesMessageId: "ses-m" });
    const msgs = [...w.messages.records.values()].filter((m) => m.headerMessageId === "m1@example.com");
    expect(msgs.map((m) => m.threadId)).toEqual([thread]);
  });

  it("a crash between recording participants and the Message-ID loses no membership: the sender's next reply joins", async () => {
    const w = verifyWorld({ resolver });
    const add = w.threads.addParticipants.bind(w.threads);
    let crash = true;
    w.threads.addParticipants = async (agent, threadId, keys) => {
      if (crash) {
        crash = false;
        throw new Error("crashed mid-store");
      }
      return add(agent, threadId, keys);
    };
    const raw = await sign({ from: CAROL, messageId: "<c1@example.com>" });
    await expect(w.receive(raw, { sesMessageId: "ses-c" })).rejects.toThrow(/crashed/);
    w.inbound.records.clear();
    const [first] = await w.receive(raw, { sesMessageId: "ses-c" });
    const thread = await threadOf(w, first?.runId);
    const [next] = await w.receive(
      await sign({ from: CAROL, messageId: "<c2@example.com>", headers: replyTo("<c1@example.com>") }),
    );
    expect(await threadOf(w, next?.runId)).toBe(thread);
  });
});
