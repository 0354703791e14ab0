import { describe, expect, it } from "vitest";
import * as z from "zod";
import { egressCheck } from "../../../shared/agent/channels/egress.ts";
import { dispatchToolCall } from "../../../shared/agent/loop/dispatch.ts";
import { parseConfig } from "../../../shared/config/load.ts";
import { builtinTools } from "../../../shared/tool-framework/builtin/index.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";
import {
  defineTool,
  type EgressDeclaration,
  success,
  type Tool,
} from "../../../shared/tool-framework/tool.ts";
import { dispatchDeps, kit } from "./dispatch-harness.ts";

const config = parseConfig({
  domains: ["agents.example.net"],
  models: [
    { id: "inside", provider: "bedrock", modelId: "m", egress: "internal" },
    { id: "outside", provider: "anthropic", model: "m", apiKeyEnv: "ANTHROPIC_API_KEY", egress: "external" },
  ],
  egress: { restrictedClasses: ["health"] },
});
const permissive = { ...config.egress, externalRecordContent: true };

let ran = 0;
function tool(name: string, egress: EgressDeclaration, data: unknown = { ok: 1 }): Tool {
  return defineTool({
    name,
    description: name,
    summary: name,
    input: z.object({ filter: z.string().optional() }).strict(),
    egress,
    sideEffects: { kind: "none" },
    async use() {
      ran++;
      return success(data);
    },
  });
}

/** Classes named by a filter like "class:health" and by records' `class` fields. */
const classify: EgressDeclaration = {
  kind: "classified",
  record: false,
  classifyInput: (input) => {
    const f = (input as { filter?: string }).filter ?? "";
    return [...f.matchAll(/class:(\w+)/g)].map((m) => m[1] as string);
  },
  classifyResult: (data) => ((data as { records?: { class: string }[] }).records ?? []).map((r) => r.class),
};

async function call(t: Tool, model: string, input: unknown = {}, policy = config.egress) {
  const registry = new ToolRegistry([t]);
  const check = egressCheck({ model: config.models.find((m) => m.id === model), policy, registry });
  const deps = dispatchDeps({ tools: [t], toolkits: [kit("k", [t.name])], checks: [check] });
  return dispatchToolCall({ id: "c1", name: t.name, input }, deps);
}

describe("egress gate (G13)", () => {
  it("an external model under the default policy gets no record content, refused before the tool runs", async () => {
    ran = 0;
    const archive = tool("search_archive", { ...classify, record: true });
    expect(await call(archive, "outside")).toMatchObject({ ok: false, reason: "egress-record-content" });
    expect(ran).toBe(0);
    expect(await call(archive, "inside")).toMatchObject({ ok: true });
  });

  it("a forbidden class named only inside a search filter is refused (no oracle)", async () => {
    ran = 0;
    const search = tool("search_people", classify, { records: [] });
    expect(await call(search, "outside", { filter: "name:bob class:health" }, permissive)).toMatchObject({
      ok: false,
      reason: "egress-restricted-class",
    });
    expect(ran).toBe(0);
    expect(await call(search, "outside", { filter: "name:bob" }, permissive)).toMatchObject({ ok: true });
  });

  it("a public record whose result references a restricted class is refused", async () => {
    const lookup = tool("lookup_person", classify, { records: [{ class: "public" }, { class: "health" }] });
    expect(await call(lookup, "outside", {}, permissive)).toMatchObject({
      ok: false,
      reason: "egress-restricted-class",
    });
    expect(await call(lookup, "inside", {}, permissive)).toMatchObject({ ok: true });
  });

  it("a classifier that throws refuses, on either side", async () => {
    const boomIn = tool("boom_in", {
      ...classify,
      classifyInput: () => {
        throw new Error("no");
      },
    });
    const boomOut = tool("boom_out", {
      ...classify,
      classifyResult: () => {
        throw new Error("no");
      },
    });
    expect(await call(boomIn, "outside", {}, permissive)).toMatchObject({
      ok: false,
      reason: "egress-classifier-error",
    });
    expect(await call(boomOut, "outside", {}, permissive)).toMatchObject({
      ok: false,
      reason: "egress-classifier-error",
    });
  });

  it("an unknown model counts as external (fail closed)", async () => {
    const archive = tool("search_archive", { ...classify, record: true });
    expect(await call(archive, "nonexistent")).toMatchObject({ ok: false, reason: "egress-record-content" });
  });

  it("structure tools pass to external models", async () => {
    expect(await call(tool("ack", { kind: "structure" }), "outside")).toMatchObject({ ok: true });
  });
});

describe("read_email on an external model", () => {
  // A cut mail names read_email, so it must work wherever round 1's context goes: it reads only the thread's mail
  // the sender could see (the same text round 1 shows any model), while wider reads stay record content.
  const tools = builtinTools();
  const check = egressCheck({
    model: config.models.find((m) => m.id === "outside"),
    policy: config.egress,
    registry: new ToolRegistry(tools),
  });
  it("is admitted under the default policy; search_emails and read_attachment are not", async () => {
    const ask = (name: string) => check("input", { name, input: {}, grantedBy: [] });
    expect(await ask("read_email")).toMatchObject({ ok: true });
    expect(await ask("search_emails")).toMatchObject({ ok: false, reason: "egress-record-content" });
    expect(await ask("read_attachment")).toMatchObject({ ok: false, reason: "egress-record-content" });
  });
});
