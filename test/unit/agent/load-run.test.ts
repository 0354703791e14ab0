import { describe, expect, it } from "vitest";
import type { StoredMessage, StoredRun } from "../../../shared/agent/ports.ts";
import { loadRun, type RunSources } from "../../../shared/agent/runs/load-run.ts";
import { noWebhooks } from "../../../shared/ports/index.ts";
import { AGENT, admin, SENDER, storedRun } from "../../fakes/builders.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { memoryRunTable } from "../../fakes/run-table.ts";

const message: StoredMessage = {
  id: "msg-1",
  threadId: "t-1",
  subject: "Order 1234",
  headerMessageId: "m1@example.com",
  from: "Alice@Example.com",
  fromName: "Alice",
};
const responsibility = {
  id: "digest",
  agent: AGENT,
  schedule: "rate(1 day)",
  prompt: "Send the digest.",
  enabled: true,
  archiveScope: "none" as const,
};

function sources(run: StoredRun, msg: StoredMessage | null = message) {
  const runs = memoryRunTable([run]);
  const failed: { runId: string; reason: string }[] = [];
  const logger = recordingLogger();
  const trace: { runId: string; type: string }[] = [];
  const deps: RunSources = {
    webhooks: noWebhooks,
    runs,
    message: async (agent, id) => (agent === AGENT && id === msg?.id ? msg : null),
    loadAdmin: async () => admin({ responsibilities: [responsibility] }),
    logger,
    trace: {
      async append(runId, e) {
        trace.push({ runId, type: e.type });
      },
    },
    runFailures: {
      async failed(r, reason) {
        failed.push({ runId: r.runId, reason });
      },
    },
  };
  return { deps, runs, logger, failed, trace };
}

describe("loadRun", () => {
  it("a reply run's sender is the proven sender as verify stored it (G17)", async () => {
    const { deps } = sources(storedRun());
    expect(await loadRun("run-1", deps)).toMatchObject({
      kind: "reply",
      trigger: { kind: "message", message: { id: "msg-1", threadId: "t-1", subject: "Order 1234" } },
      sender: { address: "Alice@Example.com", routingKey: SENDER, displayName: "Alice" },
    });
  });

  it("a display name that looks like an address is withheld", async () => {
    const { deps } = sources(storedRun(), { ...message, fromName: "ceo@bank.example" });
    expect((await loadRun("run-1", deps))?.sender?.displayName).not.toContain("@");
  });

  it("a scheduled run carries its responsibility and no sender", async () => {
    const { deps } = sources(
      storedRun({ kind: "scheduled", messageId: null, sender: null, responsibilityId: "digest" }),
    );
    expect(await loadRun("run-1", deps)).toMatchObject({
      trigger: { kind: "responsibility", responsibility: { id: "digest" } },
      sender: null,
    });
  });

  it("a run whose trigger is gone ends failed instead of hanging", async () => {
    for (const [run, msg, reason] of [
      [storedRun(), null, "message-missing"],
      [storedRun({ sender: null }), message, "message-missing"],
      [
        storedRun({ kind: "scheduled", messageId: null, responsibilityId: "deleted" }),
        null,
        "responsibility-missing",
      ],
    ] as const) {
      const { deps, runs, logger, failed } = sources(run, msg);
      expect(await loadRun("run-1", deps)).toBeNull();
      expect(runs.rows.get("run-1")).toMatchObject({ state: "failed", finishReason: reason });
      expect(logger.lines[0]).toMatchObject({ level: "error", extra: { runId: "run-1", reason } });
      // G19: reported once; a later delivery finds the run failed and reports nothing more.
      expect(failed).toEqual([{ runId: "run-1", reason }]);
      expect(await loadRun("run-1", deps)).toBeNull();
      expect(failed).toHaveLength(1);
    }
  });

  it("an unknown run is simply missing", async () => {
    const { deps, runs } = sources(storedRun());
    expect(await loadRun("nope", deps)).toBeNull();
    expect(runs.calls).toEqual(["get nope"]);
  });
});
