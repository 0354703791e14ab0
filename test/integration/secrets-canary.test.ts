import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import type { LocalStack } from "../../cli/local/stack.ts";
import { TABLE_KEYS } from "../../shared/config/tables.ts";
import { makeStores } from "../../shared/store/stores.ts";
import { type RecordingLogger, recordingLogger } from "../fakes/recording-logger.ts";
import { startPipelineStack } from "../helpers/pipeline-stack.ts";

/**
 * G16 canary: a model key planted in the environment must never appear in logs, traces, run events, stored
 * state or mail, even when the model server echoes it back in its errors.
 */
const CANARY = "sk-canary-7f3a9c1e5b2d4f6a8c0e";
const AGENT = "helpdesk@agents.example.net";
let stack: LocalStack;
let server: Server;
let dir: string;
const loggers: RecordingLogger[] = [];
/** Every line every function logged, as text with its keys and fields. */
const lines = () => loggers.flatMap((l) => l.text());
let calls = 0;

beforeAll(async () => {
  process.env.POSTERN_CANARY_API_KEY = CANARY;
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      calls++;
      const auth = String(req.headers.authorization ?? "");
      res.setHeader("content-type", "application/json");
      if (calls === 1) {
        // A hostile or careless server echoes the credential in an error body.
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { message: `internal error for ${auth}` } }));
      } else if (calls === 2) {
        res.end(
          JSON.stringify({
            choices: [
              {
                finish_reason: "tool_calls",
                message: {
                  role: "assistant",
                  content: null,
                  tool_calls: [
                    {
                      id: "c1",
                      type: "function",
                      function: {
                        name: "send_email",
                        arguments: JSON.stringify({ mode: "reply", body: "On it." }),
                      },
                    },
                  ],
                },
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5 },
          }),
        );
      } else {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: { message: `invalid key ${auth.replace("Bearer ", "")}` } }));
      }
      void body;
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  const capture = () => {
    const logger = recordingLogger();
    loggers.push(logger);
    return logger;
  };
  ({ stack, dir } = await startPipelineStack({
    config: {
      domains: ["agents.example.net"],
      models: [
        {
          id: "local",
          provider: "openai-compatible",
          baseUrl: `http://127.0.0.1:${port}/v1`,
          model: "m",
          apiKeyEnv: "POSTERN_CANARY_API_KEY",
          egress: "internal",
        },
      ],
    },
    logger: capture,
  }));
  await makeStores(stack.clients, stack.resources, recordingLogger()).admin.putAgent({
    address: AGENT,
    name: "Help",
    model: "local",
    // The key must reach the server a third time (the 401 that echoes it): the agent works on after its reply
    // instead of ending the run there (the default since a retryable model failure ends the run).
    continueAfterReply: true,
  });
}, 60_000);

afterAll(async () => {
  delete process.env.POSTERN_CANARY_API_KEY;
  await stack?.stop();
  server?.close();
});

async function everythingStored(): Promise<string> {
  const parts: string[] = [];
  for (const key of TABLE_KEYS) {
    const items = await stack.clients.dynamo.send(
      new ScanCommand({ TableName: stack.resources.tables[key] }),
    );
    parts.push(JSON.stringify(items.Items ?? []));
  }
  const objects = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: stack.resources.bucket }));
  for (const o of objects.Contents ?? []) {
    const body = await stack.clients.s3.send(
      new GetObjectCommand({ Bucket: stack.resources.bucket, Key: o.Key }),
    );
    parts.push((await body.Body?.transformToString()) ?? "");
  }
  if (existsSync(stack.outboxDir))
    for (const f of readdirSync(stack.outboxDir)) parts.push(readFileSync(join(stack.outboxDir, f), "utf8"));
  return parts.join("\n");
}

describe("secrets stay server-side (G16)", () => {
  it("a key echoed back by the model server reaches no log, trace, state or mail", async () => {
    const sent = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: "dora@customer.example",
      to: [AGENT],
      subject: "hi",
      body: "hello",
      port: stack.smtp.port,
    });
    if (!sent.ok) throw new Error(sent.reason);
    const until = Date.now() + 30_000;
    while (Date.now() < until && !lines().some((l) => l.includes('"state":"failed"')))
      await new Promise((r) => setTimeout(r, 100));
    // The run really went through the keyed model: it replied (call 2) and then failed auth (call 3).
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(lines().some((l) => l.includes("model-auth"))).toBe(true);
    const stored = await everythingStored();
    expect(stored).toContain("model-auth");
    expect(stored).toContain("On it.");
    for (const haystack of [lines().join("\n"), stored]) {
      expect(haystack).not.toContain(CANARY);
      // Nor a long fragment of it.
      expect(haystack).not.toContain(CANARY.slice(3, 18));
    }
  });
});
