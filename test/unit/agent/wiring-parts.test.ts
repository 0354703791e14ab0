import { describe, expect, it } from "vitest";
import { adoptMcpTools } from "../../../shared/agent/wiring/adopt-mcp-tools.ts";
import { rememberedRunReads } from "../../../shared/agent/wiring/remembered-run-reads.ts";
import type { Tool, ToolRegistry } from "../../../shared/tool-framework/index.ts";
import { admin, storedRun } from "../../fakes/builders.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { memoryRunTable } from "../../fakes/run-table.ts";

describe("adoptMcpTools: the step after every admin snapshot read", () => {
  function adopting(refuse: readonly string[] = []) {
    const adopted: string[][] = [];
    const registry = {
      adopt: (tools: readonly Tool[]) => {
        adopted.push(tools.map((t) => t.name));
        return refuse;
      },
    } as unknown as ToolRegistry;
    const mcp = { tools: () => [{ name: "crm_lookup" } as Tool] };
    const logger = recordingLogger();
    return { adopt: adoptMcpTools(registry, mcp, logger), adopted, logger };
  }

  it("adopts a snapshot's tools once, and again only when the snapshot changes", () => {
    const a = adopting();
    const first = admin();
    expect(a.adopt(first)).toBe(first);
    a.adopt(first);
    a.adopt(admin());
    expect(a.adopted).toEqual([["crm_lookup"], ["crm_lookup"]]);
    expect(a.logger.lines).toEqual([]);
  });

  it("logs the names a registered tool already has", () => {
    const a = adopting(["crm_lookup"]);
    a.adopt(admin());
    expect(a.logger.lines).toMatchObject([
      {
        level: "error",
        message: "mcp tools not adopted: their names are taken",
        extra: { tools: ["crm_lookup"] },
      },
    ]);
  });
});

describe("rememberedRunReads: the loop's reads, recalled by the trace sink", () => {
  it("recalls the last read of a run without reading it again, and reads a run never read", async () => {
    const runs = memoryRunTable([storedRun({ runId: "r1" }), storedRun({ runId: "r2" })]);
    const reads = rememberedRunReads(runs);
    expect((await reads.read("r1"))?.runId).toBe("r1");
    expect((await reads.recall("r1"))?.runId).toBe("r1");
    expect((await reads.recall("r2"))?.runId).toBe("r2");
    expect(runs.calls).toEqual(["get r1", "get r2"]);
  });

  it("forgets every run past 256, so a long-lived container does not grow", async () => {
    const ids = Array.from({ length: 257 }, (_, i) => `r${i}`);
    const runs = memoryRunTable(ids.map((runId) => storedRun({ runId })));
    const reads = rememberedRunReads(runs);
    for (const id of ids) await reads.read(id);
    runs.calls.length = 0;
    await reads.recall("r0");
    await reads.recall("r256");
    expect(runs.calls).toEqual(["get r0"]);
  });
});
