import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { afterEach, describe, expect, it } from "vitest";
import { bedrockModel } from "../../../shared/model/bedrock.ts";
import { documentName } from "../../../shared/model/bedrock-wire.ts";
import {
  conversation,
  LONG_SYSTEM,
  PDF_BASE64,
  PNG_BASE64,
} from "../../helpers/model-servers/conversation.ts";
import {
  type RecordingServer,
  type Reply,
  recordingSleep,
  startRecordingServer,
} from "../../helpers/model-servers/recording-server.ts";

const CLAUDE = "anthropic.claude-sonnet-4-5-v1:0";

function converse(
  content: unknown[],
  stopReason: string,
  usage: Record<string, number> = { inputTokens: 300, outputTokens: 50, totalTokens: 350 },
): Reply {
  return {
    body: {
      output: { message: { role: "assistant", content } },
      stopReason,
      usage,
      metrics: { latencyMs: 812 },
    },
  };
}

/** restJson1 error: the type travels in `x-amzn-errortype`, the text in the body's `message`. */
function awsError(status: number, type: string, message: string): Reply {
  return {
    status,
    headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
    body: { message },
  };
}

const toolUseReply = converse(
  [
    { text: "Checking." },
    { toolUse: { toolUseId: "tooluse_1", name: "lookup_order", input: { orderId: "7" } } },
  ],
  "tool_use",
);

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The real SDK client (its serialiser, SigV4 signer and default HTTP/2 handler) against a loopback server. */
async function setup(replies: Reply[], opts: { modelId?: string; timeoutMs?: number } = {}) {
  server = await startRecordingServer(replies, { http2: true });
  const client = new BedrockRuntimeClient({
    endpoint: server.url,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
    maxAttempts: 1,
  });
  const slept = recordingSleep();
  const model = bedrockModel({
    modelId: opts.modelId ?? CLAUDE,
    client,
    timeoutMs: opts.timeoutMs ?? 5000,
    retry: { sleep: slept.sleep, random: () => 1 },
  });
  return { model, server, slept, client };
}

describe("bedrock converse adapter", () => {
  it("sends the Converse request shape, signed with SigV4 for bedrock", async () => {
    const { model, server } = await setup([toolUseReply]);
    const request = conversation({ system: LONG_SYSTEM });
    await model.generate({
      ...request,
      messages: [...request.messages, { role: "user", content: [{ type: "text", text: "Any news?" }] }],
    });
    const req = server.requests[0];
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/model/anthropic.claude-sonnet-4-5-v1%3A0/converse");
    expect(String(req?.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, /,
    );
    const body = JSON.parse(req?.body ?? "");
    // Prompt caching: a checkpoint after the system prompt, the prefix every run of the agent shares;
    // serialised by the real SDK, so a shape its model does not know could not get here.
    expect(body.system).toEqual([{ text: LONG_SYSTEM }, { cachePoint: { type: "default" } }]);
    expect(body.inferenceConfig).toEqual({ maxTokens: 512 });
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: "lookup_order",
            description: "Look up an order by number.",
            inputSchema: { json: request.tools[0]?.inputSchema },
          },
        },
        // one short tool is under the model's minimum on its own: no checkpoint after the tools
      ],
    });
    expect(body.messages).toEqual([
      { role: "user", content: [{ text: "Where is order 42?" }] },
      {
        role: "assistant",
        content: [
          { text: "Let me check." },
          { toolUse: { toolUseId: "call_a", name: "lookup_order", input: { orderId: "42" } } },
          { toolUse: { toolUseId: "call_b", name: "lookup_order", input: { orderId: "43" } } },
        ],
      },
      {
        role: "user",
        content: [
          {
            toolResult: {
              toolUseId: "call_a",
              status: "success",
              content: [
                { text: '{"status":"shipped"}' },
                { image: { format: "png", source: { bytes: PNG_BASE64 } } },
                { document: { format: "pdf", name: "invoice 42", source: { bytes: PDF_BASE64 } } },
              ],
            },
          },
          { toolResult: { toolUseId: "call_b", status: "error", content: [{ text: "no such order" }] } },
          { text: "Any news?" },
          // past round 1 the conversation is checkpointed too: the next round reads it back
          { cachePoint: { type: "default" } },
        ],
      },
    ]);
  });

  it("checkpoints no conversation on round 1, and none at all for a model without prompt caching", async () => {
    const first = await setup([toolUseReply, toolUseReply]);
    await first.model.generate(
      conversation({ messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] }),
    );
    expect(JSON.parse(first.server.requests[0]?.body ?? "").messages).toEqual([
      { role: "user", content: [{ text: "Hi" }] },
    ]);
    await first.server.close();
    const llama = await setup([toolUseReply], { modelId: "meta.llama3-1-70b-instruct-v1:0" });
    await llama.model.generate(conversation());
    expect(llama.server.requests[0]?.body).not.toContain("cachePoint");
  });

  it("reads cache reads and writes from Bedrock's TokenUsage, apart from inputTokens", async () => {
    const cached = (usage: Record<string, number>): Reply => converse([{ text: "ok" }], "end_turn", usage);
    const { model } = await setup([
      cached({
        inputTokens: 12,
        outputTokens: 30,
        totalTokens: 2090,
        cacheReadInputTokens: 0,
        cacheWriteInputTokens: 2048,
      }),
      cached({
        inputTokens: 12,
        outputTokens: 30,
        totalTokens: 2090,
        cacheReadInputTokens: 2048,
        cacheWriteInputTokens: 0,
      }),
    ]);
    const write = await model.generate(conversation());
    const read = await model.generate(conversation());
    expect(write.ok && write.turn.usage).toEqual({
      inputTokens: 12,
      outputTokens: 30,
      cacheWriteTokens: 2048,
    });
    expect(read.ok && read.turn.usage).toEqual({ inputTokens: 12, outputTokens: 30, cacheReadTokens: 2048 });
  });

  it("gives non-Claude models no toolResult status and no media blocks", async () => {
    const { model, server } = await setup([toolUseReply], { modelId: "meta.llama3-1-70b-instruct-v1:0" });
    expect(model.capabilities).toEqual({ supportsImages: false, supportsDocuments: false });
    await model.generate(conversation({ tools: [] }));
    const body = JSON.parse(server.requests[0]?.body ?? "");
    expect(body).not.toHaveProperty("toolConfig");
    expect(body.messages[2].content).toEqual([
      {
        toolResult: {
          toolUseId: "call_a",
          content: [
            { text: '{"status":"shipped"}' },
            { text: "[image (image/png) omitted: this model does not accept images]" },
            {
              text: '[document "invoice 42" (application/pdf) omitted: this model does not accept documents]',
            },
          ],
        },
      },
      { toolResult: { toolUseId: "call_b", content: [{ text: "ERROR: no such order" }] } },
    ]);
  });

  it("never sends blank text: no empty system block, a placeholder for an empty assistant turn", async () => {
    const { model, server } = await setup([toolUseReply]);
    await model.generate(
      conversation({
        system: "",
        messages: [
          { role: "user", content: [{ type: "text", text: "hi" }] },
          { role: "assistant", text: "", toolCalls: [] },
          { role: "user", content: [{ type: "text", text: "again" }] },
        ],
      }),
    );
    const body = JSON.parse(server.requests[0]?.body ?? "");
    expect(body).not.toHaveProperty("system");
    expect(body.messages[1]).toEqual({ role: "assistant", content: [{ text: "(no response)" }] });
  });

  it("parses toolUse blocks into tool calls", async () => {
    const { model } = await setup([toolUseReply]);
    expect(await model.generate(conversation())).toEqual({
      ok: true,
      turn: {
        text: "Checking.",
        toolCalls: [{ id: "tooluse_1", name: "lookup_order", input: { orderId: "7" } }],
        stopReason: "tool_use",
        usage: { inputTokens: 300, outputTokens: 50 },
      },
    });
  });

  it("parses text responses and maps stop reasons", async () => {
    const { model } = await setup([
      converse([{ text: "It shipped." }], "end_turn"),
      converse([{ text: "It sh" }], "max_tokens"),
      converse([{ text: "" }], "malformed_tool_use"),
      converse([{ text: "blocked" }], "guardrail_intervened"),
    ]);
    expect(await model.generate(conversation())).toEqual({
      ok: true,
      turn: {
        text: "It shipped.",
        toolCalls: [],
        stopReason: "end",
        usage: { inputTokens: 300, outputTokens: 50 },
      },
    });
    const reasons = [];
    for (let i = 0; i < 3; i++) {
      const r = await model.generate(conversation());
      reasons.push(r.ok ? r.turn.stopReason : r.reason);
    }
    expect(reasons).toEqual(["max_tokens", "other", "other"]);
  });

  it("flags a toolUse whose input is not an object", async () => {
    const { model } = await setup([
      converse([{ toolUse: { toolUseId: "t9", name: "lookup_order", input: ["7"] } }], "tool_use"),
    ]);
    const result = await model.generate(conversation());
    expect(result.ok && result.turn.toolCalls).toEqual([
      {
        id: "t9",
        name: "lookup_order",
        input: undefined,
        malformedInput: { raw: '["7"]', error: "input is not a JSON object" },
      },
    ]);
  });

  it("retries ThrottlingException and ServiceUnavailableException with backoff, then succeeds", async () => {
    const { model, server, slept } = await setup([
      awsError(429, "ThrottlingException", "Too many requests, please wait before trying again."),
      awsError(503, "ServiceUnavailableException", "Service unavailable"),
      toolUseReply,
    ]);
    const result = await model.generate(conversation());
    expect(result.ok).toBe(true);
    expect(server.requests).toHaveLength(3);
    // Jitter pinned at its top: the full step, 1000 ms then 2000 ms.
    expect(slept.delays).toEqual([1000, 2000]);
  });

  it("gives up on persistent throttling with a retryable model-throttled", async () => {
    const { model, server } = await setup([awsError(429, "ThrottlingException", "Too many requests")]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-throttled", retryable: true });
    expect(!result.ok && result.detail).toMatch(/ThrottlingException \(HTTP 429\).*after 3 attempts/);
    expect(server.requests).toHaveLength(3);
  });

  it("reports an unparseable body as model-malformed-response", async () => {
    const { model } = await setup([{ body: '{"output": {"message": ' }]);
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-malformed-response",
    });
  });

  it("reports a body without output.message as model-malformed-response", async () => {
    const { model } = await setup([
      { body: { stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 1 } } },
    ]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-malformed-response" });
    expect(!result.ok && result.detail).toMatch(/output\.message/);
  });

  it("retries InternalServerException once, then fails retryable", async () => {
    const { model, server } = await setup([awsError(500, "InternalServerException", "internal")]);
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-http-error",
      retryable: true,
    });
    expect(server.requests).toHaveLength(2);
  });

  it("fails a ValidationException at once, not retryable", async () => {
    const { model, server } = await setup([awsError(400, "ValidationException", "messages: blank text")]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-http-error", retryable: false });
    expect(!result.ok && result.detail).toContain("ValidationException (HTTP 400): messages: blank text");
    expect(server.requests).toHaveLength(1);
  });

  it("maps AccessDeniedException to model-auth", async () => {
    const { model, server } = await setup([
      awsError(403, "AccessDeniedException", "not authorized to invoke"),
    ]);
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-auth",
      retryable: false,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("times out a server that never answers", async () => {
    const { model } = await setup([{ hang: true }], { timeoutMs: 150 });
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-timeout",
      retryable: true,
    });
  });

  it("reports a refused connection as model-network", async () => {
    const { model, server } = await setup([]);
    await server.close();
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-network",
      retryable: true,
    });
  });

  it("reports missing AWS credentials as model-auth", async () => {
    server = await startRecordingServer([toolUseReply], { http2: true });
    const client = new BedrockRuntimeClient({
      endpoint: server.url,
      region: "us-east-1",
      maxAttempts: 1,
      credentials: async () => {
        const err = new Error("Could not load credentials from any providers");
        err.name = "CredentialsProviderError";
        throw err;
      },
    });
    const result = await bedrockModel({ modelId: CLAUDE, client }).generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-auth", retryable: false });
    expect(server.requests).toHaveLength(0);
  });

  it("rethrows an error it does not understand instead of recording it as a model failure", async () => {
    const model = bedrockModel({
      modelId: CLAUDE,
      client: {
        send: async () => {
          throw new TypeError("cannot read properties of undefined");
        },
      },
    });
    await expect(model.generate(conversation())).rejects.toThrow(TypeError);
  });

  it("cleans document names to the characters Converse accepts", () => {
    expect(documentName("invoice_42.pdf")).toBe("invoice-42-pdf");
    expect(documentName("a   b\n(c) [d]")).toBe("a b (c) [d]");
    expect(documentName("...")).toBe("---");
    expect(documentName("")).toBe("document");
  });
});
