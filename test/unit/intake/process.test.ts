import { beforeAll, describe, expect, it } from "vitest";
import { formatCode } from "../../../shared/mail/confirm-reading.ts";
import { AGENT, APPROVER, agent, signedMail } from "../../fakes/builders.ts";
import { buildMessage, type MessageParts } from "../../helpers/dkim-test-keys.ts";
import { QUEUES } from "../../helpers/step-world.ts";
import { verifyWorld } from "../../helpers/verify-world.ts";

/** processInbound (shared/intake/process.ts) on the in-memory fakes: the real gate, real DKIM, no emulator. */

let resolver: Awaited<ReturnType<typeof signedMail>>["resolver"];
const sign = async (parts: MessageParts = {}, domain = "example.com") =>
  (await signedMail(parts, domain)).raw;
beforeAll(async () => {
  ({ resolver } = await signedMail({}, "example.com", ["approvers.example"]));
});

const CODE = "K7Q2M9XT4Z";

/** A pending plan of run-1 carrying CODE, as sealing leaves it. */
async function pendingPlan(w: ReturnType<typeof verifyWorld>) {
  await w.plans.add("run-1", AGENT, {
    callId: "c1",
    tool: "issue_refund",
    input: {},
    summary: "Refund",
    toolkits: ["refunds"],
  });
  await w.plans.seal("run-1", AGENT, { code: CODE, hash: "h", expiresAtIso: "2026-11-30T12:00:00.000Z" });
}

describe("processInbound", () => {
  it("a proven sender's mail is stored in the agent's mailbox and starts one run", async () => {
    const w = verifyWorld({ resolver });
    const [summary] = await w.receive(await sign({ body: "Where is my order 1234?" }));
    expect(summary).toMatchObject({
      recipient: AGENT,
      verdict: "accept",
      reason: "accepted",
      status: "processed",
    });
    const runId = summary?.runId ?? "";
    // A new run: nothing saved, proposed or read yet (the round heeds these only on its first claim).
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([
      { runId, round: 1, fresh: true, noPlan: true, channelOpen: true },
    ]);
    const run = w.runs.rows.get(runId);
    expect(run).toMatchObject({ agent: AGENT, kind: "reply", sender: "alice@example.com", state: "running" });
    const stored = await w.messages.get(AGENT, String(run?.messageId));
    expect(stored).toMatchObject({ from: "alice@example.com", fromName: "Alice", threadId: run?.threadId });
    // A short body is kept on the item, not written to S3.
    expect(stored?.body).toContain("Where is my order 1234?");
    expect(await w.blobs.getText(String(stored?.bodyKey))).toBeNull();
    expect(await w.inbound.get("ses-1", AGENT)).toMatchObject({
      status: "done",
      verdict: "accept",
      messageId: stored?.id,
    });
  });

  it("automatic mail an agent opted in to is stored marked automatic (its sender is never written to unasked)", async () => {
    const w = verifyWorld({ resolver, admin: { agents: [agent({ acceptAutoSubmitted: true })] } });
    const [auto] = await w.receive(await sign({ headers: ["Auto-Submitted: auto-replied"] }));
    const [person] = await w.receive(await sign({ body: "A person wrote this." }));
    const stored = async (runId: string | null | undefined) =>
      w.messages.get(AGENT, String(w.runs.rows.get(runId ?? "")?.messageId));
    expect((await stored(auto?.runId))?.automatic).toBe(true);
    expect((await stored(person?.runId))?.automatic).toBeUndefined();
  });

  it("a body over 2 KiB goes to S3 under the record's bodyKey, and only there", async () => {
    const w = verifyWorld({ resolver });
    const body = "A long question about order 1234, told at length.\n".repeat(60);
    const [summary] = await w.receive(await sign({ body }));
    const run = w.runs.rows.get(summary?.runId ?? "");
    const stored = await w.messages.get(AGENT, String(run?.messageId));
    expect(stored?.body).toBeUndefined();
    expect((await w.blobs.getText(String(stored?.bodyKey)))?.trim()).toBe(body.trim());
  });

  it("a redelivered SES notification is a duplicate: no second message, run or step", async () => {
    const w = verifyWorld({ resolver });
    const raw = await sign();
    await w.receive(raw, { sesMessageId: "ses-a" });
    const again = await w.receive(raw, { sesMessageId: "ses-a" });
    expect(again).toEqual([{ recipient: AGENT, verdict: "accept", reason: "accepted", status: "duplicate" }]);
    expect(w.queue.bodies(QUEUES.agentStep)).toHaveLength(1);
    expect(w.runs.rows.size).toBe(1);
  });

  it("the same signed message replayed in a new SES message is dropped quietly (G2): no run, no notice", async () => {
    const w = verifyWorld({ resolver });
    const raw = await sign();
    await w.receive(raw);
    const [replay] = await w.receive(raw);
    expect(replay).toEqual({ recipient: AGENT, verdict: "drop", reason: "replayed", status: "processed" });
    expect(w.queue.sent).toHaveLength(1);
    expect(w.runs.rows.size).toBe(1);
    expect(w.logger.messages("warn")).toEqual(["inbound replay dropped"]);
    expect(await w.inbound.get("ses-2", AGENT)).toMatchObject({
      verdict: "drop",
      reason: "replayed",
      messageId: null,
    });
  });

  it("unsigned mail is refused and never answered (G6); a proven but denied sender gets one notice", async () => {
    const w = verifyWorld({
      resolver,
      admin: { accessRules: [{ agent: AGENT, pattern: "bob@example.com", effect: "deny" }] },
    });
    const [unsigned] = await w.receive(Buffer.from(buildMessage()));
    expect(unsigned).toMatchObject({ verdict: "refuse", reason: "dkim-none" });
    const [denied] = await w.receive(await sign({ from: "Bob <bob@example.com>" }));
    expect(denied).toMatchObject({ verdict: "refuse", reason: "access-denied" });
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([]);
    expect(w.queue.bodies(QUEUES.outbound)).toEqual([
      expect.objectContaining({
        agent: AGENT,
        to: ["bob@example.com"],
        kind: "notice",
        notice: { reason: "access-denied", inboundHop: 0 },
      }),
    ]);
    expect(w.messages.records.size).toBe(0);
  });

  it("an approver's APPROVE for a pending plan goes to the plan, not to a new run (G14)", async () => {
    const w = verifyWorld({ resolver });
    await pendingPlan(w);
    const raw = await sign(
      { from: `Boss <${APPROVER}>`, body: `APPROVE ${formatCode(CODE)}\r\n\r\nYes.\r\n` },
      "approvers.example",
    );
    const [summary] = await w.receive(raw);
    expect(summary).toMatchObject({ verdict: "accept", status: "processed" });
    expect(summary?.runId).toBeUndefined();
    expect(w.runs.rows.size).toBe(0);
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([
      {
        confirm: {
          code: CODE,
          action: "approve",
          sender: APPROVER,
          agent: AGENT,
          replyId: "ses-1",
          hop: 0,
          agentOriginated: false,
        },
      },
    ]);
  });

  it("a reply that only quotes a pending plan's code is `unclear`; mail that carries an agent's hop header says so", async () => {
    const w = verifyWorld({ resolver });
    await pendingPlan(w);
    const quoting = await sign(
      {
        from: `Boss <${APPROVER}>`,
        headers: ["X-Postern-Recursion: 1"],
        body: `Sounds good to me\r\n\r\n> Approval needed - code ${formatCode(CODE)}\r\n`,
      },
      "approvers.example",
    );
    await w.receive(quoting);
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([
      {
        confirm: expect.objectContaining({
          code: CODE,
          action: "unclear",
          understood: "nothing",
          agentOriginated: true,
          hop: 1,
        }),
      },
    ]);
  });

  it("an APPROVE below the approver's first line is `unclear`, found by the code it names, so the notice reaches them", async () => {
    const w = verifyWorld({ resolver });
    await pendingPlan(w);
    // Nothing quoted and a subject without the code: only the misplaced line names the plan.
    await w.receive(
      await sign(
        { from: `Boss <${APPROVER}>`, body: `Ne, neschvaluji.\r\n\r\nAPPROVE ${CODE}\r\n` },
        "approvers.example",
      ),
    );
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([
      { confirm: expect.objectContaining({ code: CODE, action: "unclear", understood: "nothing" }) },
    ]);
  });

  it("a reply naming many codes costs at most five plan look-ups", async () => {
    const w = verifyWorld({ resolver });
    const asked: string[] = [];
    w.deps.planAgent = async (code) => {
      asked.push(code);
      return null;
    };
    const codes = Array.from(
      { length: 40 },
      (_, i) => `K7Q2M9XT${"ABCDEFGHJKMNPQRSTUVWXYZ23456789"[i % 31]}${i < 31 ? "A" : "B"}`,
    );
    await w.receive(await sign({ body: ["Hello", ...codes.map((c) => `APPROVE ${c}`)].join("\r\n") }));
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThanOrEqual(5);
  });

  it("a reply quoting a code no pending plan of this agent carries is ordinary mail: it starts a run", async () => {
    const w = verifyWorld({ resolver });
    const [summary] = await w.receive(await sign({ body: `Thanks!\r\n\r\n> code: ${formatCode(CODE)}\r\n` }));
    expect(summary?.runId).toBeDefined();
    expect(w.queue.bodies(QUEUES.agentStep)).toEqual([
      { runId: summary?.runId, round: 1, fresh: true, noPlan: true, channelOpen: true },
    ]);
  });

  it("raw mail that is not in the bucket is an error (SQS redelivers), not a verdict", async () => {
    const w = verifyWorld({ resolver });
    const { processInbound } = await import("../../../shared/intake/process.ts");
    const { inboundEvent } = await import("../../fakes/builders.ts");
    await expect(processInbound(inboundEvent({ objectKey: "inbound/gone" }), w.deps)).rejects.toThrow(
      /not found/,
    );
    expect(w.inbound.records.size).toBe(0);
  });
});
