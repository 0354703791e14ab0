import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../../../shared/model/anthropic.ts";
import type { ApiKeySource } from "../../../shared/model/secret-source.ts";
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

const KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
const withKey: ApiKeySource = async () => ({ ok: true, key: KEY });

function message(
  content: unknown[],
  stopReason: string,
  usage: Record<string, number> = { input_tokens: 200, output_tokens: 40 },
): Reply {
  return {
    body: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    },
  };
}

const withUsage = (usage: Record<string, number>): Reply =>
  message([{ type: "text", text: "ok" }], "end_turn", usage);

function apiError(status: number, type: string, text: string, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: { type: "error", error: { type, message: text } } };
}

const toolUseReply = message(
  [
    { type: "text", text: "Checking." },
    { type: "tool_use", id: "toolu_01", name: "lookup_order", input: { orderId: "7" } },
  ],
  "tool_use",
);

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replies: Reply[], timeoutMs = 5000) {
  server = await startRecordingServer(replies);
  const slept = recordingSleep();
  const model = anthropicModel({
    baseUrl: server.url,
    model: "claude-sonnet-4-5",
    apiKey: withKey,
    timeoutMs,
    retry: { sleep: slept.sleep, random: () => 0 },
  });
  return { model, server, slept };
}

describe("anthropic adapter", () => {
  it("sends the Messages API request shape", async () => {
    const { model, server } = await setup([toolUseReply]);
    const request = conversation({ system: LONG_SYSTEM });
    await model.generate({
      ...request,
      messages: [...request.messages, { role: "user", content: [{ type: "text", text: "Any news?" }] }],
    });
    const req = server.requests[0];
    expect(req?.path).toBe("/v1/messages");
    expect(req?.headers["x-api-key"]).toBe(KEY);
    expect(req?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(req?.headers.authorization).toBeUndefined();
    const body = JSON.parse(req?.body ?? "");
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(body.max_tokens).toBe(512);
    // Prompt caching: the API renders tools, system, messages; one breakpoint on the system block caches
    // tools and system for the agent's next run.
    expect(body.system).toEqual([{ type: "text", text: LONG_SYSTEM, cache_control: { type: "ephemeral" } }]);
    expect(body.tools).toEqual([
      {
        name: "lookup_order",
        description: "Look up an order by number.",
        input_schema: request.tools[0]?.inputSchema,
      },
    ]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Where is order 42?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "call_a", name: "lookup_order", input: { orderId: "42" } },
          { type: "tool_use", id: "call_b", name: "lookup_order", input: { orderId: "43" } },
        ],
      },
      {
        // Tool results and the next user text share one user turn: the API demands alternation.
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_a",
            is_error: false,
            content: [
              { type: "text", text: '{"status":"shipped"}' },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
              {
                type: "document",
                title: "invoice 42",
                source: { type: "base64", media_type: "application/pdf", data: PDF_BASE64 },
              },
            ],
          },
          {
            type: "tool_result",
            tool_use_id: "call_b",
            is_error: true,
            content: [{ type: "text", text: "no such order" }],
          },
          // past round 1, the conversation's last block is a breakpoint too: the next round reads it back
          { type: "text", text: "Any news?", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
  });

  it("marks no conversation breakpoint on round 1, where a cache write would cost more than it saves", async () => {
    const { model, server } = await setup([message([{ type: "text", text: "ok" }], "end_turn")]);
    await model.generate(
      conversation({
        system: LONG_SYSTEM,
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      }),
    );
    const body = JSON.parse(server.requests[0]?.body ?? "");
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
    expect(body.system[0].cache_control).toEqual({ type: "ephemeral" });
  });

  it("reads cache reads and writes from the usage Anthropic returns, apart from full-price input", async () => {
    // The response shape of Anthropic's "Prompt caching" guide: input_tokens counts only what follows the last
    // breakpoint; cache_creation_input_tokens and cache_read_input_tokens the rest.
    const { model } = await setup([
      withUsage({
        input_tokens: 21,
        cache_creation_input_tokens: 188086,
        cache_read_input_tokens: 0,
        output_tokens: 393,
      }),
      withUsage({
        input_tokens: 21,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 188086,
        output_tokens: 393,
      }),
    ]);
    const first = await model.generate(conversation());
    const second = await model.generate(conversation());
    expect(first.ok && first.turn.usage).toEqual({
      inputTokens: 21,
      outputTokens: 393,
      cacheWriteTokens: 188086,
    });
    expect(second.ok && second.turn.usage).toEqual({
      inputTokens: 21,
      outputTokens: 393,
      cacheReadTokens: 188086,
    });
  });

  it("sends plain-text documents as text sources", async () => {
    const { model, server } = await setup([message([{ type: "text", text: "ok" }], "end_turn")]);
    await model.generate(
      conversation({
        messages: [
          {
            role: "tool",
            results: [
              {
                toolCallId: "t1",
                content: { type: "text", text: "see file" },
                isError: false,
                attachments: [
                  {
                    type: "document",
                    mediaType: "text/plain",
                    name: "notes",
                    data: Buffer.from("hello").toString("base64"),
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const body = JSON.parse(server.requests[0]?.body ?? "");
    expect(body.messages[0].content[0].content[1]).toEqual({
      type: "document",
      title: "notes",
      source: { type: "text", media_type: "text/plain", data: "hello" },
    });
  });

  it("parses tool_use blocks into tool calls", async () => {
    const { model } = await setup([toolUseReply]);
    expect(await model.generate(conversation())).toEqual({
      ok: true,
      turn: {
        text: "Checking.",
        toolCalls: [{ id: "toolu_01", name: "lookup_order", input: { orderId: "7" } }],
        stopReason: "tool_use",
        usage: { inputTokens: 200, outputTokens: 40 },
      },
    });
  });

  it("parses a text response, ignoring block kinds it does not act on", async () => {
    const { model } = await setup([
      message(
        [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "text", text: "It " },
          { type: "text", text: "shipped." },
        ],
        "end_turn",
      ),
      message([{ type: "text", text: "It sh" }], "max_tokens"),
      message([{ type: "text", text: "no" }], "refusal"),
    ]);
    const first = await model.generate(conversation());
    expect(first).toEqual({
      ok: true,
      turn: {
        text: "It shipped.",
        toolCalls: [],
        stopReason: "end",
        usage: { inputTokens: 200, outputTokens: 40 },
      },
    });
    const second = await model.generate(conversation());
    expect(second.ok && second.turn.stopReason).toBe("max_tokens");
    const third = await model.generate(conversation());
    expect(third.ok && third.turn.stopReason).toBe("other");
  });

  it("flags a tool_use whose input is not an object", async () => {
    const { model } = await setup([
      message([{ type: "tool_use", id: "toolu_9", name: "lookup_order", input: "orderId=7" }], "tool_use"),
    ]);
    const result = await model.generate(conversation());
    expect(result.ok && result.turn.toolCalls).toEqual([
      {
        id: "toolu_9",
        name: "lookup_order",
        input: undefined,
        malformedInput: { raw: '"orderId=7"', error: "input is not a JSON object" },
      },
    ]);
  });

  it("retries 529 overloaded and 429 (honouring retry-after), then succeeds", async () => {
    const { model, server, slept } = await setup([
      apiError(529, "overloaded_error", "Overloaded"),
      apiError(429, "rate_limit_error", "Number of requests has exceeded your rate limit", {
        "retry-after": "7",
      }),
      toolUseReply,
    ]);
    const result = await model.generate(conversation());
    expect(result.ok).toBe(true);
    expect(server.requests).toHaveLength(3);
    // First: backoff step 1000 ms with jitter pinned at 0 (half the step); second: retry-after 7 s.
    expect(slept.delays).toEqual([500, 7000]);
  });

  it("treats a persistent 529 overloaded as throttling: three attempts, then retryable model-throttled", async () => {
    const { model, server } = await setup([apiError(529, "overloaded_error", "Overloaded")]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-throttled", retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it("caps a huge retry-after so a Lambda does not sleep through its timeout", async () => {
    const { model, slept } = await setup([
      apiError(429, "rate_limit_error", "slow", { "retry-after": "3600" }),
      toolUseReply,
    ]);
    await model.generate(conversation());
    expect(slept.delays).toEqual([30_000]);
  });

  it("reports a malformed body as model-malformed-response", async () => {
    const { model } = await setup([{ body: '{"type":"message","content":[' }]);
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-malformed-response",
    });
  });

  it("reports a tool_use block without an id as model-malformed-response naming the block", async () => {
    const { model } = await setup([message([{ type: "tool_use", name: "x", input: {} }], "tool_use")]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-malformed-response" });
    expect(!result.ok && result.detail).toMatch(/content\.0: id/);
  });

  it("retries a 500 api_error once, then fails retryable", async () => {
    const { model, server } = await setup([apiError(500, "api_error", "Internal server error")]);
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-http-error",
      retryable: true,
    });
    expect(server.requests).toHaveLength(2);
  });

  it("maps 401 to model-auth and redacts the echoed key", async () => {
    const { model, server } = await setup([
      apiError(401, "authentication_error", `invalid x-api-key ${KEY}`),
    ]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-auth", retryable: false });
    expect(server.requests).toHaveLength(1);
    expect(!result.ok && result.detail).toBe(
      "127.0.0.1:" +
        new URL(server.url).port +
        "/v1/messages: HTTP 401: authentication_error: invalid x-api-key [redacted]",
    );
  });

  it("maps 403 permission_error to model-auth", async () => {
    const { model } = await setup([apiError(403, "permission_error", "no access")]);
    expect(await model.generate(conversation())).toMatchObject({ ok: false, reason: "model-auth" });
  });

  it("times out, and reports a caller's abort as a timeout too", async () => {
    const { model } = await setup([{ hang: true }], 100);
    expect(await model.generate(conversation())).toMatchObject({ ok: false, reason: "model-timeout" });
    const controller = new AbortController();
    const pending = model.generate(conversation({ signal: controller.signal }));
    controller.abort();
    const aborted = await pending;
    expect(aborted).toMatchObject({ ok: false, reason: "model-timeout" });
    expect(!aborted.ok && aborted.detail).toMatch(/aborted by the caller/);
  });

  it("fails model-config when no key is available", async () => {
    server = await startRecordingServer([toolUseReply]);
    const model = anthropicModel({
      baseUrl: server.url,
      model: "m",
      apiKey: async () => ({ ok: true, key: undefined }),
    });
    expect(await model.generate(conversation())).toMatchObject({ ok: false, reason: "model-config" });
    expect(server.requests).toHaveLength(0);
  });
});
