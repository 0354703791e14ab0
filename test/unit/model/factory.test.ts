import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { modelEntry } from "../../../shared/config/schema.ts";
import { createModel } from "../../../shared/model/factory.ts";
import { ScriptError } from "../../../shared/model/script.ts";
import { envSecretSource, type SecretRef, type SecretSource } from "../../../shared/secrets/source.ts";
import { conversation } from "../../helpers/model-servers/conversation.ts";
import {
  type RecordingServer,
  recordingSleep,
  startRecordingServer,
} from "../../helpers/model-servers/recording-server.ts";

const KEY = "sk-proj-Zq8vN3xL0pR7tY2wK5mB9cD4fG6hJ1";

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A provider that rejects the key and quotes it back, as real APIs do. */
async function echoingServer() {
  server = await startRecordingServer((req) => ({
    status: 401,
    body: { error: { message: `invalid key: ${req.headers.authorization ?? req.headers["x-api-key"]}` } },
  }));
  return server;
}

const noSleep = { retry: { sleep: recordingSleep().sleep } };

describe("createModel", () => {
  it("loads a scripted model's script relative to the config directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-factory-"));
    writeFileSync(join(dir, "demo-script.json"), JSON.stringify({ turns: [{ text: "done" }] }));
    const entry = modelEntry.parse({
      id: "demo",
      provider: "scripted",
      script: "demo-script.json",
      egress: "internal",
    });
    const model = createModel(entry, { baseDir: dir, secrets: envSecretSource({}) });
    expect(model.name).toBe("demo");
    const result = await model.generate(conversation({ messages: [] }));
    expect(result.ok && result.turn.text).toBe("done");
  });

  it("throws a ScriptError naming the field for an invalid script", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-factory-"));
    writeFileSync(join(dir, "s.json"), JSON.stringify({ turns: [{ toolCalls: [{}] }] }));
    const entry = modelEntry.parse({
      id: "demo",
      provider: "scripted",
      script: "s.json",
      egress: "internal",
    });
    expect(() => createModel(entry, { baseDir: dir, secrets: envSecretSource({}) })).toThrow(ScriptError);
    expect(() => createModel(entry, { baseDir: dir, secrets: envSecretSource({}) })).toThrow(
      /turns\.0\.toolCalls\.0\.name/,
    );
  });

  it("openai-compatible: takes the key from apiKeyEnv and redacts it when the server echoes it", async () => {
    const srv = await echoingServer();
    const entry = modelEntry.parse({
      id: "local",
      provider: "openai-compatible",
      baseUrl: `${srv.url}/v1`,
      model: "llama3.1",
      apiKeyEnv: "LOCAL_API_KEY",
      egress: "internal",
    });
    const model = createModel(entry, {
      baseDir: ".",
      secrets: envSecretSource({ LOCAL_API_KEY: KEY }),
      ...noSleep,
    });
    const result = await model.generate(conversation());
    expect(srv.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(result).toMatchObject({ ok: false, reason: "model-auth" });
    expect(!result.ok && result.detail).toContain("invalid key: Bearer [redacted]");
    expect(JSON.stringify(result)).not.toContain(KEY.slice(8, 20));
  });

  it("openai-compatible: sends no Authorization header when no key is configured", async () => {
    server = await startRecordingServer([
      { body: { choices: [{ message: { content: "hi" }, finish_reason: "stop" }] } },
    ]);
    const entry = modelEntry.parse({
      id: "local",
      provider: "openai-compatible",
      baseUrl: `${server.url}/v1`,
      model: "llama3.1",
      egress: "internal",
    });
    const result = await createModel(entry, { baseDir: ".", secrets: envSecretSource({}) }).generate(
      conversation(),
    );
    expect(result.ok).toBe(true);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("a configured but unset key is a model-config failure naming the variable, with no request sent", async () => {
    server = await startRecordingServer([{ body: {} }]);
    const entry = modelEntry.parse({
      id: "local",
      provider: "openai-compatible",
      baseUrl: server.url,
      model: "m",
      apiKeyEnv: "LOCAL_API_KEY",
      egress: "internal",
    });
    const result = await createModel(entry, {
      baseDir: ".",
      secrets: envSecretSource({ LOCAL_API_KEY: "" }),
    }).generate(conversation());
    expect(result).toEqual({
      ok: false,
      reason: "model-config",
      detail: "API key not found: env var LOCAL_API_KEY is unset or empty",
      retryable: false,
    });
    expect(server.requests).toHaveLength(0);
  });

  it("anthropic: reads apiKeySecret through the secret source and redacts the echoed key", async () => {
    const srv = await echoingServer();
    const asked: SecretRef[] = [];
    const secrets: SecretSource = {
      async get(ref) {
        asked.push(ref);
        return ref.secret === "secretsmanager:postern/anthropic" ? KEY : undefined;
      },
    };
    const entry = modelEntry.parse({
      id: "direct",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseUrl: srv.url,
      apiKeySecret: "secretsmanager:postern/anthropic",
      egress: "external",
    });
    const result = await createModel(entry, { baseDir: ".", secrets, ...noSleep }).generate(conversation());
    expect(asked).toEqual([{ env: undefined, secret: "secretsmanager:postern/anthropic" }]);
    expect(srv.requests[0]?.headers["x-api-key"]).toBe(KEY);
    expect(result).toMatchObject({
      ok: false,
      reason: "model-auth",
      detail: expect.stringContaining("invalid key: [redacted]"),
    });
  });

  it("a secret source that fails yields model-config with the error's name only", async () => {
    const entry = modelEntry.parse({
      id: "direct",
      provider: "anthropic",
      model: "m",
      apiKeySecret: "ssm:/postern/key",
      egress: "external",
    });
    const secrets: SecretSource = {
      async get() {
        const err = new Error(`User is not authorized; partial value ${KEY}`);
        err.name = "AccessDeniedException";
        throw err;
      },
    };
    const result = await createModel(entry, { baseDir: ".", secrets }).generate(conversation());
    expect(result).toEqual({
      ok: false,
      reason: "model-config",
      detail: "API key unavailable: reading secret ssm:/postern/key failed (AccessDeniedException)",
      retryable: false,
    });
  });

  it("refuses an anthropic entry with no key reference", () => {
    const entry = modelEntry.parse({ id: "direct", provider: "anthropic", model: "m", egress: "external" });
    expect(() => createModel(entry, { baseDir: ".", secrets: envSecretSource({}) })).toThrow(
      /needs "apiKeySecret" or "apiKeyEnv"/,
    );
  });

  it("bedrock: uses the injected client", async () => {
    const sent: unknown[] = [];
    const entry = modelEntry.parse({
      id: "claude",
      provider: "bedrock",
      modelId: "anthropic.claude-sonnet-4-5-v1:0",
      egress: "internal",
    });
    const model = createModel(entry, {
      baseDir: ".",
      secrets: envSecretSource({}),
      bedrockClient: {
        send: async (command: { input: unknown }) => {
          sent.push(command.input);
          return {
            output: { message: { role: "assistant", content: [{ text: "hi" }] } },
            stopReason: "end_turn",
            usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
            metrics: { latencyMs: 1 },
            $metadata: {},
          };
        },
      } as never,
    });
    expect(model.name).toBe("claude");
    expect(model.capabilities).toEqual({ supportsImages: true, supportsDocuments: true });
    const result = await model.generate(conversation());
    expect(result.ok && result.turn.text).toBe("hi");
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ modelId: "anthropic.claude-sonnet-4-5-v1:0" });
  });
});

describe("envSecretSource", () => {
  it("reads env refs only and treats empty as unset", async () => {
    const source = envSecretSource({ A_KEY: "v", B_KEY: "" });
    expect(await source.get({ env: "A_KEY" })).toBe("v");
    expect(await source.get({ env: "B_KEY" })).toBeUndefined();
    expect(await source.get({ secret: "ssm:/x" })).toBeUndefined();
  });
});
