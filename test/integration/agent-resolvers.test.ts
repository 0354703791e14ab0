import { afterEach, describe, expect, it } from "vitest";
import { runStep } from "../../shared/agent/loop/step.ts";
import { defineContextResolver } from "../../shared/tool-framework/context-resolver.ts";
import { customerProfileResolver, demoOrderBackend } from "../../tools/orders.ts";
import { counting, type Harness, SENDER, scripted, startHarness } from "../helpers/agent-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const backend = demoOrderBackend([
  { id: "A-2001", customer: SENDER, status: "shipped", totalCents: 100, items: ["x"] },
]);

async function firstPrompt(opts: {
  granted: boolean;
  egress?: "internal" | "external";
  extra?: Parameters<typeof defineContextResolver>[0];
}) {
  const model = counting(scripted([{ text: "done" }]));
  const resolvers = [
    customerProfileResolver(backend),
    ...(opts.extra ? [defineContextResolver(opts.extra)] : []),
  ];
  h = await startHarness({
    tools: [],
    toolkits: opts.granted ? [{ id: "ctx", tools: resolvers.map((r) => r.name) }] : [],
    model,
    resolvers,
    ...(opts.egress ? { egress: opts.egress } : {}),
  });
  const runId = await h.startReplyRun();
  await runStep({ runId, round: 1 }, h.deps);
  const text = JSON.stringify(model.calls[0]?.messages[0]);
  const events = (await h.deps.stores.runEvents.list(runId))
    .filter((e) => e.type === "resolver")
    .map((e) => e.data);
  return { text, events };
}

describe("resolvers (context before the first model call)", () => {
  it("a granted resolver adds the verified sender's record, inside a fence", async () => {
    const { text, events } = await firstPrompt({ granted: true });
    expect(text).toContain("Context from customer_profile");
    expect(text).toMatch(/<<<UNTRUSTED CONTEXT [0-9a-f]{24}>>>/);
    expect(text).toContain("A-2001");
    expect(events).toEqual([{ name: "customer_profile", ok: true }]);
  });

  it("an ungranted resolver adds nothing (fail-closed, like tools)", async () => {
    const { text, events } = await firstPrompt({ granted: false });
    expect(text).not.toContain("A-2001");
    expect(events).toEqual([]);
  });

  it("record content from a resolver never reaches an external model (G13), and a throwing resolver adds nothing", async () => {
    const { text, events } = await firstPrompt({
      granted: true,
      egress: "external",
      extra: {
        name: "broken",
        description: "throws",
        egress: { kind: "structure" },
        resolve: async () => {
          throw new Error("backend down");
        },
      },
    });
    expect(text).not.toContain("A-2001");
    expect(events).toEqual([
      { name: "customer_profile", ok: false, reason: "egress-record-content" },
      { name: "broken", ok: false, reason: "resolver-error: backend down" },
    ]);
  });

  it("G18: a resolver result of a restricted class closes the run's channels before the model sees it", async () => {
    const model = counting(scripted([{ text: "done" }]));
    const vault = defineContextResolver({
      name: "vault",
      description: "card on file",
      egress: {
        kind: "classified",
        record: false,
        classifyInput: () => [],
        classifyResult: () => ["payment-card"],
      },
      resolve: async () => ({ ok: true, data: { card: "4111 1111 1111 1111" } }),
    });
    h = await startHarness({
      tools: [],
      toolkits: [{ id: "ctx", tools: ["vault"] }],
      model,
      resolvers: [vault],
      restrictedClasses: ["payment-card"],
    });
    const runId = await h.startReplyRun();
    await runStep({ runId, round: 1 }, h.deps);
    // An internal model may see it (G13); the run may not carry it out (G18).
    expect(JSON.stringify(model.calls[0]?.messages[0])).toContain("4111");
    expect(await h.deps.stores.state.get(`channel#${runId}`, "closed")).toMatchObject({
      because: "restricted-class",
    });
    const events = await h.deps.stores.runEvents.list(runId);
    expect(events.filter((e) => e.type === "channel-closed").map((e) => e.data)).toEqual([
      { because: "restricted-class" },
    ]);
  });
});
