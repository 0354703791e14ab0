import { describe, expect, it } from "vitest";
import { planLines, renderRunTree } from "../../cli/runs-tree.ts";
import { plansView, planView } from "../../console/views/plans.ts";
import type { PlanRecord, RequesterProof } from "../../shared/ports/plans.ts";
import type { RunRecord, StoredRunEvent } from "../../shared/ports/runs.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";

/**
 * What the operator reads about a plan, in the console and the CLI (G14, G19): a failed plan says `failed (<reason>)`
 * with when and each operation's result numbered as the card numbers them; every plan names who asked. Pure views,
 * rendered to strings (no browser).
 */

const requester = (address: string, asking: string): RequesterProof => ({
  address,
  displayName: "Pat",
  proof: { dkimDomain: address.split("@")[1] ?? "", signed: { to: true, cc: false, threading: "none" } },
  messageId: "m-1",
  threadId: `t-${address}`,
  subject: "Refund <please>",
  receivedAt: "2026-11-29T11:59:00.000Z",
  asking,
});

const OPS = [
  {
    callId: "c1",
    tool: "lookup_order",
    input: { order: "A-1001" },
    summary: "Look up",
    toolkits: ["refunds"],
  },
  {
    callId: "c2",
    tool: "issue_refund",
    input: { order: "A-1001" },
    summary: "Refund",
    toolkits: ["refunds"],
  },
  { callId: "c3", tool: "send_note", input: { order: "A-1001" }, summary: "Note", toolkits: ["refunds"] },
];

const failedPlan: PlanRecord = {
  runId: "run-1",
  agent: "refunds@agents.example",
  state: "failed",
  ops: OPS,
  code: "K7Q2M9XT4Z",
  planAt: "2026-11-29T12:00:00.000Z",
  decidedBy: "boss@approvers.example",
  decidedAt: "2026-11-29T12:05:00.000Z",
  finishedAt: "2026-11-29T12:05:01.000Z",
  failedReason: "order-not-found",
  results: [
    { number: 1, tool: "lookup_order", status: "ok", at: "2026-11-29T12:05:00.500Z" },
    {
      number: 2,
      tool: "issue_refund",
      status: "failed",
      reason: "order-not-found",
      detail: "no order A-1001 for <this> sender",
      at: "2026-11-29T12:05:01.000Z",
    },
    { number: 3, tool: "send_note", status: "not-run" },
  ],
  requester: requester("mallory@elsewhere.example", "Refund A-1001 <b>now</b>"),
};

const page = (plan: PlanRecord) =>
  String(
    planView(plan, {
      approvers: ["boss@approvers.example"],
      mayDecide: true,
      csrf: "t",
      registry: new ToolRegistry([]),
      now: new Date("2026-11-29T13:00:00Z"),
    }),
  );

describe("the console's plan page", () => {
  it("a failed plan: failed (reason), decided and finished times, each operation's result in card order", () => {
    const html = page(failedPlan);
    expect(html).toContain("failed (order-not-found)</strong> by boss@approvers.example");
    expect(html).toMatch(/<th>Decided<\/th><td><time datetime="2026-11-29T12:05:00.000Z"/);
    expect(html).toMatch(/<th>Finished<\/th><td><time datetime="2026-11-29T12:05:01.000Z"/);
    const results = [...html.matchAll(/<p>Result: (.*?)<\/p>/gs)].map((m) => m[1] ?? "");
    expect(results).toHaveLength(3);
    expect(results[0]).toContain("done");
    expect(results[1]).toContain("failed (order-not-found)");
    expect(results[2]).toContain("not run: an earlier operation failed");
    // The tool's words are the tool's: escaped, in a box that says who wrote them.
    expect(html).toContain("returned by the tool issue_refund");
    expect(html).toContain("no order A-1001 for &lt;this&gt; sender");
    expect(html).not.toContain("Apply</button>");
  });

  it("names who asked, how it was proven, the thread, and their words fenced as theirs", () => {
    const html = page(failedPlan);
    expect(html).toContain("<strong>mallory@elsewhere.example</strong>");
    expect(html).toContain(
      "DKIM signature of elsewhere.example; To signed, Cc NOT signed, threading none (a new conversation)",
    );
    expect(html).toContain('href="/agents/refunds%40agents.example/threads/t-mallory%40elsewhere.example"');
    expect(html).toContain("written by the sender mallory@elsewhere.example: untrusted");
    expect(html).toContain("Refund A-1001 &lt;b&gt;now&lt;/b&gt;");
    expect(html).not.toContain("<b>now</b>");
  });
});

describe("Pending plans", () => {
  it("two plans alike but for who asked read differently", () => {
    const pending = (runId: string, who: string): PlanRecord => ({
      runId,
      agent: "refunds@agents.example",
      state: "pending",
      ops: [OPS[1] as (typeof OPS)[number]],
      planAt: "2026-11-29T12:00:00.000Z",
      expiresAtIso: "2026-11-30T12:00:00.000Z",
      requester: requester(who, "Please refund A-1001"),
    });
    const html = String(
      plansView({
        items: [pending("run-a", "pat@customer.example"), pending("run-b", "mallory@elsewhere.example")],
        next: null,
      }),
    );
    const rows = html.split("<tr>").filter((r) => r.includes("/plans/run-"));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("pat@customer.example");
    expect(rows[0]).toContain("DKIM customer.example");
    expect(rows[1]).toContain("mallory@elsewhere.example");
    expect(rows[1]).toContain("DKIM elsewhere.example");
  });
});

describe("postern runs show", () => {
  it("a failed plan in the header: failed (reason), who decided when, who asked, each operation's result", () => {
    expect(planLines(failedPlan)).toEqual([
      "  plan failed (order-not-found)  decided by boss@approvers.example at 2026-11-29T12:05:00.000Z  finished 2026-11-29T12:05:01.000Z",
      "    asked by mallory@elsewhere.example (DKIM signature of elsewhere.example; To signed, Cc NOT signed, threading none (a new conversation))",
      "    1. lookup_order  done",
      "    2. issue_refund  FAILED (order-not-found): no order A-1001 for <this> sender",
      "    3. send_note  not run (an earlier operation failed)",
    ]);
  });

  it("the tree numbers operations as the card does, and a tool's words cannot repaint the terminal", () => {
    const run = {
      runId: "run-1",
      agent: "refunds@agents.example",
      kind: "reply",
      state: "completed",
      finishReason: "end",
      sender: "mallory@elsewhere.example",
      createdAt: "2026-11-29T11:59:00.000Z",
      correlationId: "ses-1",
    } as RunRecord;
    const event = (seq: number, data: Record<string, unknown>): StoredRunEvent => ({
      runId: "run-1",
      seq,
      type: "plan-op",
      at: "2026-11-29T12:05:00.000Z",
      round: 0,
      data,
    });
    const hostile: PlanRecord = {
      ...failedPlan,
      results: [
        { number: 1, tool: "lookup_order", status: "failed", reason: "x", detail: "\u001b[2Jgone\nline" },
      ],
    };
    const out = renderRunTree(
      run,
      [
        event(1, { index: 0, number: 1, of: 2, tool: "lookup_order", status: "ok", ok: true }),
        event(2, {
          index: 1,
          number: 2,
          of: 2,
          tool: "issue_refund",
          status: "failed",
          ok: false,
          reason: "r",
        }),
      ],
      {},
      hostile,
    );
    expect(out).toContain("plan: operation 1 of 2 lookup_order applied");
    expect(out).toContain("plan: operation 2 of 2 issue_refund failed: r");
    expect(out).toContain("    1. lookup_order  FAILED (x): \uFFFD[2Jgone⏎line");
    expect(out).not.toContain("\u001b");
  });
});
