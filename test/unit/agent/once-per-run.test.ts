import { describe, expect, it } from "vitest";
import { oncePerRun } from "../../../shared/agent/runs/once-per-run.ts";
import { memoryState } from "../../fakes/state.ts";

type E = { readonly type: string; readonly data: { readonly server?: string } };

describe("oncePerRun", () => {
  it("records a keyed event once per run, however many rounds see it; other events every time", async () => {
    const state = memoryState();
    const seen: string[] = [];
    const recorder = (runId: string) =>
      oncePerRun<E>(
        state,
        runId,
        (e) => (e.type === "mcp-unreviewed" ? `${e.type}#${e.data.server}` : null),
        async (e) => void seen.push(`${runId} ${e.type} ${e.data.server ?? ""}`),
      );
    for (let round = 1; round <= 3; round++) {
      // Each round builds its recorder anew, as each SQS delivery does.
      const record = recorder("run-1");
      await record({ type: "mcp-unreviewed", data: { server: "orders" } });
      await record({ type: "mcp-unavailable", data: { server: "crm" } });
    }
    await recorder("run-1")({ type: "mcp-unreviewed", data: { server: "crm" } });
    await recorder("run-2")({ type: "mcp-unreviewed", data: { server: "orders" } });
    expect(seen).toEqual([
      "run-1 mcp-unreviewed orders",
      "run-1 mcp-unavailable crm",
      "run-1 mcp-unavailable crm",
      "run-1 mcp-unavailable crm",
      "run-1 mcp-unreviewed crm",
      "run-2 mcp-unreviewed orders",
    ]);
  });
});
