import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { startLocalStack } from "../../cli/local/stack.ts";
import { removeStackFile, writeStackFile } from "../../cli/local/stack-file.ts";
import { silentLogger } from "../../shared/logger.ts";
import { UNKNOWN_OUTCOME_LOG } from "../../shared/ports/failures.ts";
import { DynamoRoundLedger } from "../../shared/store/round-ledger.ts";
import { sendStateStore } from "../../shared/store/send-state-store.ts";
import { makeStores } from "../../shared/store/stores.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";

const ROOT = join(import.meta.dirname, "../..");
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "postern-restart-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("local stack state", () => {
  it.concurrent("keeps raw mail and admin items across a restart, and its stack.json only while running", async () => {
    const dir = tmp();
    const opts = { dir, persist: true, smtpPort: 0, configPath: join(dir, "absent.config.json") } as const;
    const first = await startLocalStack(opts);
    const { bucket, tables } = first.resources;
    await first.clients.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: "inbound/keepme", Body: "raw\r\n" }),
    );
    await first.clients.dynamo.send(
      new PutCommand({
        TableName: tables.agents,
        Item: { address: "kept@demo.postern.test", name: "Kept", model: "demo" },
      }),
    );
    expect(existsSync(first.stackFile)).toBe(true);
    await first.stop();
    expect(existsSync(first.stackFile)).toBe(false);

    const second = await startLocalStack(opts);
    try {
      const obj = await second.clients.s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: "inbound/keepme" }),
      );
      expect(await obj.Body?.transformToString()).toBe("raw\r\n");
      const kept = await second.clients.dynamo.send(
        new GetCommand({ TableName: tables.agents, Key: { address: "kept@demo.postern.test" } }),
      );
      expect(kept.Item?.name).toBe("Kept");
      // The demo agent was seeded once, on the first start, and is still there.
      const demo = await second.clients.dynamo.send(
        new GetCommand({ TableName: tables.agents, Key: { address: "helpdesk@demo.postern.test" } }),
      );
      expect(demo.Item?.model).toBe("demo");
    } finally {
      await second.stop();
    }
  });

  it.concurrent("keeps queued messages across a restart, and hands back at once what the stopped stack had in flight", async () => {
    const dir = tmp();
    // No handlers: nothing polls, so the queue holds exactly what the test puts there.
    const opts = { dir, persist: true, smtpPort: 0, configPath: join(dir, "absent.config.json") } as const;
    const first = await startLocalStack(opts);
    const queue = first.resources.queues.verify;
    for (const body of ["one", "two"])
      await first.clients.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
    // One of them received and never deleted: a batch the stop (or a kill) interrupted. Visibility timeout: 30 s.
    const taken = await first.clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue, MaxNumberOfMessages: 1 }),
    );
    expect(taken.Messages).toHaveLength(1);
    await first.stop();

    const second = await startLocalStack(opts);
    try {
      const bodies: string[] = [];
      const until = Date.now() + 10_000;
      while (bodies.length < 2 && Date.now() < until) {
        const got = await second.clients.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: second.resources.queues.verify,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 2,
          }),
        );
        bodies.push(...(got.Messages ?? []).map((m) => m.Body ?? ""));
      }
      expect(bodies.sort()).toEqual(["one", "two"]);
    } finally {
      await second.stop();
    }
  });

  it.concurrent("releases the rounds and settles the sends a stopped stack held, before anything polls", async () => {
    const dir = tmp();
    const opts = { dir, persist: true, smtpPort: 0, configPath: join(dir, "absent.config.json") } as const;
    const first = await startLocalStack(opts);
    const ledger = (s: typeof first) =>
      new DynamoRoundLedger({ dynamo: s.clients.dynamo, tables: s.resources.tables });
    const sends = (s: typeof first) => sendStateStore(makeStores(s.clients, s.resources, silentLogger).state);
    // What a stack killed mid-round and mid-send leaves: a round claimed for 15 minutes, a send between
    // `sending` and `sent`.
    expect(await ledger(first).claim("run-held", 1, 15 * 60_000)).toEqual({ status: "claimed", first: true });
    const at = new Date().toISOString();
    expect(await sends(first).claim("send-held", at)).toBe(true);
    expect(await sends(first).transition("send-held", ["claimed"], "sending", { sendingAt: at }, at)).toBe(
      true,
    );
    await first.stop();

    const logger = recordingLogger();
    const second = await startLocalStack({ ...opts, logger });
    try {
      expect(await ledger(second).claim("run-held", 1, 15 * 60_000)).toEqual({
        status: "claimed",
        first: false,
      });
      // Never sent again: whether SES took it is unknown, and an operator is told (docs/outbound.md).
      expect(await sends(second).get("send-held")).toMatchObject({
        state: "unknown",
        reason: "crashed-while-sending",
      });
      expect(logger.messages("error")).toContain(UNKNOWN_OUTCOME_LOG);
    } finally {
      await second.stop();
    }
  });

  it.concurrent("refuses to start over another live process's stack, and never removes its stack.json", async () => {
    const dir = tmp();
    const file = join(dir, "stack.json");
    // The vitest parent process: alive, and not us.
    const other = {
      pid: process.ppid,
      startedAt: new Date().toISOString(),
      smtp: { host: "127.0.0.1", port: 1 },
    };
    writeStackFile(file, { ...other, resources: {} as never, outboxDir: "", zoneFile: "" });
    await expect(startLocalStack({ dir, smtpPort: 0, configPath: join(dir, "none.json") })).rejects.toThrow(
      `already running from ${dir} (pid ${process.ppid})`,
    );
    removeStackFile(file);
    expect(existsSync(file)).toBe(true);
  });

  it.concurrent("`postern start` prints what listens, writes stack.json, and stops cleanly on SIGTERM", async () => {
    const dir = tmp();
    const child = spawn(
      join(ROOT, "node_modules/.bin/node"),
      [
        join(ROOT, "bin/postern.mjs"),
        "start",
        "--dir",
        dir,
        "--config",
        join(dir, "absent.json"),
        "--smtp-port",
        "0",
        "--aws-port",
        "0",
        "--dynamodb-port",
        "0",
        "--ses-port",
        "0",
        // the console too: its default port may be a running `npm start`'s (test/unit/harness/stack-ports.test.ts)
        "--console-port",
        "0",
      ],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (out += d));
    await waitFor(
      child,
      () => out.includes("Ctrl-C stops the stack"),
      () => out,
    );
    expect(out).toMatch(/SMTP intake \(SES receiving\)\s+smtp:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/queue verify: polled/);
    expect(out).toMatch(
      /npx postern dev send --from you@sender\.postern\.test --to helpdesk@demo\.postern\.test/,
    );
    expect(JSON.parse(readFileSync(join(dir, "stack.json"), "utf8")).pid).toBe(child.pid);

    child.kill("SIGTERM");
    const code = await new Promise<number | null>((res) => child.once("exit", res));
    expect(code).toBe(0);
    expect(out).toMatch(/stopped; state kept/);
    expect(existsSync(join(dir, "stack.json"))).toBe(false);
  });
});

async function waitFor(
  child: ChildProcess,
  cond: () => boolean,
  output: () => string,
  ms = 45_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (child.exitCode !== null) throw new Error(`postern start exited with ${child.exitCode}:\n${output()}`);
    if (Date.now() > end) throw new Error(`postern start did not come up:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
