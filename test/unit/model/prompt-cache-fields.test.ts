import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../../../shared/model/anthropic.ts";
import { bedrockModel } from "../../../shared/model/bedrock.ts";
import { modelFacts } from "../../../shared/model/model-facts.ts";
import { cachePlan, lowTokenEstimate } from "../../../shared/model/prompt-cache.ts";
import type { ModelRequest } from "../../../shared/model/types.ts";
import { conversation, LONG_SYSTEM, lookupTool } from "../../helpers/model-servers/conversation.ts";
import { type RecordingServer, startRecordingServer } from "../../helpers/model-servers/recording-server.ts";

// Where each model family takes a prompt-cache checkpoint, seen on the wire: the Bedrock requests are built by the
// real SDK (ConverseCommand, its serializer and signer) and sent to a loopback server, so the JSON asserted here is
// what Bedrock would receive.

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const CONVERSE_OK = {
  body: {
    output: { message: { role: "assistant", content: [{ text: "ok" }] } },
    stopReason: "end_turn",
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    metrics: { latencyMs: 1 },
  },
};

/** The Converse body Bedrock would receive for this model id and request. */
async function converseBody(modelId: string, request: ModelRequest): Promise<Record<string, unknown>> {
  server = await startRecordingServer([CONVERSE_OK], { http2: true });
  const client = new BedrockRuntimeClient({
    endpoint: server.url,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
    maxAttempts: 1,
  });
  const result = await bedrockModel({ modelId, client, timeoutMs: 5000 }).generate(request);
  expect(result.ok).toBe(true);
  const body = JSON.parse(server.requests[0]?.body ?? "") as Record<string, unknown>;
  await server.close();
  server = undefined;
  return body;
}

/** Which fields of a Converse body end with a checkpoint. */
function checkpointed(body: Record<string, unknown>): string[] {
  const ends = (blocks: unknown) =>
    Array.isArray(blocks) && JSON.stringify(blocks.at(-1)).includes("cachePoint");
  const tools = (body.toolConfig as { tools?: unknown[] } | undefined)?.tools;
  const messages = body.messages as { content: unknown[] }[];
  const all = JSON.stringify(body).split('"cachePoint"').length - 1;
  const found = [
    ...(ends(tools) ? ["tools"] : []),
    ...(ends(body.system) ? ["system"] : []),
    ...(ends(messages.at(-1)?.content) ? ["messages"] : []),
  ];
  // No checkpoint anywhere but at the end of those fields.
  expect(all).toBe(found.length);
  return found;
}

/** Tools long enough to reach every model's minimum on their own (a long description, as a catalog tool has). */
const LONG_TOOL = { ...lookupTool, description: `Look up an order. ${"Orders have numbers. ".repeat(900)}` };
/** Round 2 with a long prefix: every field a checkpoint may follow is past every minimum. */
const RICH = conversation({ system: LONG_SYSTEM, tools: [LONG_TOOL] });

describe("prompt-cache checkpoints per model family, on the wire", () => {
  it("Claude Sonnet 4.6 through the global. profile: after the tools, the system prompt and the conversation", async () => {
    expect(checkpointed(await converseBody("global.anthropic.claude-sonnet-4-6", RICH))).toEqual([
      "tools",
      "system",
      "messages",
    ]);
  });

  it("Amazon Nova: after the system prompt and the conversation, never in toolConfig.tools", async () => {
    for (const id of ["amazon.nova-pro-v1:0", "us.amazon.nova-lite-v1:0"]) {
      const body = await converseBody(id, RICH);
      expect(checkpointed(body)).toEqual(["system", "messages"]);
      expect(JSON.stringify(body.toolConfig)).not.toContain("cachePoint");
    }
  });

  it("a model without prompt caching gets none", async () => {
    expect(checkpointed(await converseBody("meta.llama3-1-70b-instruct-v1:0", RICH))).toEqual([]);
  });

  it("no checkpoint on a prefix under the model's minimum: Sonnet 4.6 caches from 1,024 tokens, Sonnet 4.5 on Bedrock from 4,096", async () => {
    // about 1,500 tokens of system prompt (counted low): past Sonnet 4.6's minimum, under Sonnet 4.5's
    const mid = conversation({ system: "Answer from the order records. ".repeat(200) });
    expect(lowTokenEstimate(mid.system)).toBeGreaterThan(1024);
    expect(lowTokenEstimate(mid.system)).toBeLessThan(4096);
    expect(checkpointed(await converseBody("global.anthropic.claude-sonnet-4-6", mid))).toEqual([
      "system",
      "messages",
    ]);
    expect(checkpointed(await converseBody("global.anthropic.claude-sonnet-4-5-20250929-v1:0", mid))).toEqual(
      [],
    );
    // the demo's short prompt: nothing for any model
    expect(checkpointed(await converseBody("global.anthropic.claude-sonnet-4-6", conversation()))).toEqual(
      [],
    );
  });

  it("the Claude API: cache_control only where the prefix reaches the model's minimum", async () => {
    const bodies: Record<string, unknown>[] = [];
    server = await startRecordingServer([
      {
        body: {
          id: "msg_01",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-6",
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
    ]);
    const model = anthropicModel({
      baseUrl: server.url,
      model: "claude-sonnet-4-6",
      apiKey: async () => ({ ok: true, key: "sk-ant-test-key-0123456789" }),
      timeoutMs: 5000,
    });
    for (const request of [RICH, conversation()]) {
      await model.generate(request);
      bodies.push(JSON.parse(server.requests.at(-1)?.body ?? "") as Record<string, unknown>);
    }
    const [rich, short] = bodies;
    expect(JSON.stringify(rich?.system)).toContain("cache_control");
    expect(JSON.stringify((rich?.messages as unknown[] | undefined)?.at(-1))).toContain("cache_control");
    expect(JSON.stringify(short)).not.toContain("cache_control");
  });

  it("the plan counts the tools into the system prompt's prefix only where the model renders them first", () => {
    const sonnet = modelFacts("bedrock", "global.anthropic.claude-sonnet-4-6");
    const nova = modelFacts("bedrock", "amazon.nova-pro-v1:0");
    // long tools, short system prompt: Claude's system checkpoint covers tools + system; Nova's does not
    const toolsHeavy = conversation({ system: "Be brief.", tools: [LONG_TOOL] });
    expect(cachePlan(toolsHeavy, sonnet)).toMatchObject({ tools: true, system: true });
    expect(cachePlan(toolsHeavy, nova)).toMatchObject({ tools: false, system: false });
  });
});
