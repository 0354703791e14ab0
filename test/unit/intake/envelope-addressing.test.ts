import { beforeAll, describe, expect, it } from "vitest";
import { AGENT, agent } from "../../fakes/builders.ts";
import {
  buildMessage,
  resolverFor,
  signWith,
  type TestKeys,
  testKeys,
  zoneFor,
} from "../../helpers/dkim-test-keys.ts";
import { QUEUES } from "../../helpers/step-world.ts";
import { verifyWorld } from "../../helpers/verify-world.ts";

/**
 * Mail addressed by the envelope (its signature covers no To/Cc naming the agent: Outlook, Exchange Online) was
 * never proven to be meant for the agent, so its unsigned To can be rewritten by whoever relays it. The same
 * signed message therefore starts at most one run in the whole deployment, not one per agent; one SES delivery
 * to two agents the sender named is that one delivery, not a replay.
 */

const SALES = "sales@agents.example.net";
/** What Exchange Online signs (docs/gate.md). */
const MICROSOFT = ["from", "date", "subject", "message-id", "content-type", "mime-version"];

let keys: TestKeys;
let resolver: ReturnType<typeof resolverFor>;
beforeAll(async () => {
  keys = await testKeys();
  resolver = resolverFor(zoneFor(keys, ["example.com"]));
});

const outlookMail = (to: string) =>
  signWith(keys, "rsa2048", buildMessage({ to, subject: "Please call me" }), {
    domain: "example.com",
    headers: MICROSOFT,
  });
/** The same signed bytes with the unsigned To rewritten, as a replayer may. */
const readdressed = (raw: Buffer, from: string, to: string) =>
  Buffer.from(raw.toString("latin1").replace(`To: ${from}`, `To: ${to}`), "latin1");

const world = () => verifyWorld({ resolver, admin: { agents: [agent(), agent({ address: SALES })] } });

describe("envelope addressing: one run in the deployment per signed message", () => {
  it("the same Outlook mail re-addressed to a second agent is dropped as replayed", async () => {
    const w = world();
    const raw = await outlookMail(AGENT);
    const [first] = await w.receive(raw, { recipients: [AGENT] });
    expect(first).toMatchObject({ verdict: "accept", reason: "accepted" });
    const [second] = await w.receive(readdressed(raw, AGENT, SALES), { recipients: [SALES] });
    expect(second).toMatchObject({ verdict: "drop", reason: "replayed" });
    expect(w.runs.rows.size).toBe(1);
  });

  it("one SES delivery to two agents the sender named starts a run for each", async () => {
    const w = world();
    const raw = await outlookMail(`${AGENT}, ${SALES}`);
    const out = await w.receive(raw, { recipients: [AGENT, SALES] });
    expect(out.map((o) => o.verdict)).toEqual(["accept", "accept"]);
    expect(w.runs.rows.size).toBe(2);
  });

  it("the decision line and the stored mail say how it was addressed", async () => {
    const w = world();
    const [first] = await w.receive(await outlookMail(AGENT), { recipients: [AGENT] });
    const line = w.logger.lines.find((l) => l.message === "inbound decision");
    expect(line?.extra).toMatchObject({ addressing: "envelope" });
    const run = w.runs.rows.get(String(first?.runId));
    const stored = [...w.messages.records.values()].find((m) => m.threadId === run?.threadId);
    expect(stored).toMatchObject({ addressing: "envelope", threadedBy: "none", to: [], cc: [] });
  });
});

describe("what the sender of an unaddressed mail is told is what happened", () => {
  it.each([
    ["a stale signed Date", 2 * 60 * 60 * 1000, MICROSOFT, "not-addressed-stale"],
    ["no signed Date", 0, ["from", "subject"], "not-addressed-unsigned"],
    ["a signed To naming someone else", 0, ["from", "to", "subject", "date"], "not-addressed"],
  ])("%s: the notice says so", async (_name, lateMs, headers, notice) => {
    const w = world();
    w.clock.now = new Date(w.clock.now.getTime() + lateMs);
    const to = notice === "not-addressed" ? "bob@example.com" : AGENT;
    const raw = await signWith(keys, "rsa2048", buildMessage({ to }), { domain: "example.com", headers });
    const [d] = await w.receive(raw, { recipients: [AGENT] });
    expect(d).toMatchObject({ verdict: "refuse", reason: "not-addressed" });
    expect(w.queue.bodies(QUEUES.outbound)).toEqual([
      expect.objectContaining({ notice: expect.objectContaining({ reason: notice }) }),
    ]);
  });
});
