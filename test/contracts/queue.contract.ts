import { describe, expect, it } from "vitest";
import type { SqsQueue } from "../../shared/queue/sqs-queue.ts";

export interface QueueSubject {
  readonly queue: Pick<SqsQueue, "send">;
  /** A queue of its own for this case. */
  readonly url: string;
  /** The bodies a consumer receives from `url`, parsed. */
  received(): Promise<unknown[]>;
}

/** Handing work on (SqsQueue.send): what the consumer receives is the JSON of what was sent. */
export function queueContract(make: () => QueueSubject | Promise<QueueSubject>): void {
  describe("SqsQueue", () => {
    it("delivers the body as JSON: undefined fields vanish, dates arrive as strings; each send has an id", async () => {
      const q = await make();
      const id = await q.queue.send(q.url, {
        requestId: "r1",
        gone: undefined,
        at: new Date("2026-11-29T12:00:00Z"),
      });
      expect(id).toMatch(/\S/);
      await q.queue.send(q.url, { runId: "run-1", round: 2 });
      const got = await q.received();
      expect(got).toHaveLength(2);
      expect(got).toEqual(
        expect.arrayContaining([
          { requestId: "r1", at: "2026-11-29T12:00:00.000Z" },
          { runId: "run-1", round: 2 },
        ]),
      );
    });

    it("accepts a delay of 0-900 whole seconds and refuses any other before sending", async () => {
      const q = await make();
      await q.queue.send(q.url, { n: 1 }, { delaySeconds: 0 });
      for (const delaySeconds of [901, -1, 1.5])
        await expect(q.queue.send(q.url, { n: 2 }, { delaySeconds })).rejects.toThrow(/0-900/);
      expect(await q.received()).toEqual([{ n: 1 }]);
    });
  });
}
