import { afterEach, describe, expect, it } from "vitest";
import { openAiCompatibleModel } from "../../../shared/model/openai-compatible.ts";
import type { ApiKeySource } from "../../../shared/model/secret-source.ts";
import { conversation } from "../../helpers/model-servers/conversation.ts";
import {
  type RecordingServer,
  type Reply,
  recordingSleep,
  startRecordingServer,
} from "../../helpers/model-servers/recording-server.ts";

const KEY = "sk-test-0123456789abcdefghijklmnop";
const withKey: ApiKeySource = async () => ({ ok: true, key: KEY });

function completion(
  message: Record<string, unknown>,
  finish: string,
  usage: Record<string, unknown> = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
): Reply {
  return {
    body: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1700000000,
      model: "llama3.1",
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
      usage,
    },
  };
}

const toolUseReply = completion(
  {
    content: null,
    tool_calls: [
      { id: "call_x1", type: "function", function: { name: "lookup_order", arguments: '{"orderId":"7"}' } },
    ],
  },
  "tool_calls",
);

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replies: Reply[], opts: { key?: boolean; timeoutMs?: number } = {}) {
  server = await startRecordingServer(replies);
  const slept = recordingSleep();
  const model = openAiCompatibleModel({
    baseUrl: `${server.url}/v1/`,
    model: "llama3.1",
    ...(opts.key === false ? {} : { apiKey: withKey }),
    timeoutMs: opts.timeoutMs ?? 5000,
    retry: { sleep: slept.sleep, random: () => 0.5 },
  });
  return { model, server, slept };
}

describe("openai-compatible adapter", () => {
  it("sends the chat-completions request shape", async () => {
    const { model, server } = await setup([toolUseReply]);
    await model.generate(conversation());
    const req = server.requests[0];
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/v1/chat/completions");
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(req?.body ?? "");
    expect(body.model).toBe("llama3.1");
    expect(body.max_tokens).toBe(512);
    expect(body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "lookup_order",
          description: "Look up an order by number.",
          parameters: conversation().tools[0]?.inputSchema,
        },
      },
    ]);
    expect(body.messages).toEqual([
      { role: "system", content: "You are the helpdesk agent." },
      { role: "user", content: "Where is order 42?" },
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "lookup_order", arguments: '{"orderId":"42"}' },
          },
          {
            id: "call_b",
            type: "function",
            function: { name: "lookup_order", arguments: '{"orderId":"43"}' },
          },
        ],
      },
      {
        role: "tool",
        tool_call_id: "call_a",
        content:
          '{"status":"shipped"}\n[image (image/png) omitted: this model does not accept images]\n' +
          '[document "invoice 42" (application/pdf) omitted: this model does not accept documents]',
      },
      { role: "tool", tool_call_id: "call_b", content: "ERROR: no such order" },
    ]);
  });

  it("reads OpenAI's cached prompt tokens as cache reads, apart from full-price input", async () => {
    // OpenAI caches a prefix of 1,024 tokens or more by itself; the response's usage reports the part read, as a
    // subset of prompt_tokens (the "Prompt caching" guide's shape). Nothing is marked in the request.
    const ok = { role: "assistant", content: "ok" };
    const { model, server } = await setup([
      completion(ok, "stop", {
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920 },
        completion_tokens_details: { reasoning_tokens: 0 },
      }),
      // a compatible server that reports more cached tokens than prompt tokens cannot make input negative
      completion(ok, "stop", {
        prompt_tokens: 10,
        completion_tokens: 1,
        prompt_tokens_details: { cached_tokens: 99 },
      }),
    ]);
    const first = await model.generate(conversation());
    expect(first.ok && first.turn.usage).toEqual({
      inputTokens: 86,
      outputTokens: 300,
      cacheReadTokens: 1920,
    });
    expect(server.requests[0]?.body).not.toContain("cache");
    const odd = await model.generate(conversation());
    expect(odd.ok && odd.turn.usage).toEqual({ inputTokens: 0, outputTokens: 1, cacheReadTokens: 10 });
  });

  it("sends no Authorization header and no empty tools array when neither is configured", async () => {
    const { model, server } = await setup([completion({ content: "hi" }, "stop")], { key: false });
    await model.generate(conversation({ tools: [] }));
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.parse(server.requests[0]?.body ?? "")).not.toHaveProperty("tools");
  });

  it("parses a tool-use response into tool calls", async () => {
    const { model } = await setup([toolUseReply]);
    expect(await model.generate(conversation())).toEqual({
      ok: true,
      turn: {
        text: "",
        toolCalls: [{ id: "call_x1", name: "lookup_order", input: { orderId: "7" } }],
        stopReason: "tool_use",
        usage: { inputTokens: 120, outputTokens: 30 },
      },
    });
  });

  it("treats tool calls under finish_reason stop (Ollama) as tool use", async () => {
    const { model } = await setup([
      completion(
        { content: "", tool_calls: [{ function: { name: "lookup_order", arguments: { orderId: "9" } } }] },
        "stop",
      ),
    ]);
    const result = await model.generate(conversation());
    expect(result.ok && result.turn.stopReason).toBe("tool_use");
    expect(result.ok && result.turn.toolCalls).toEqual([
      { id: "call_0", name: "lookup_order", input: { orderId: "9" } },
    ]);
  });

  it("parses a plain text response and maps length to max_tokens", async () => {
    const { model } = await setup([
      completion({ content: "It shipped." }, "stop"),
      completion({ content: "It sh" }, "length"),
    ]);
    const first = await model.generate(conversation());
    expect(first).toEqual({
      ok: true,
      turn: {
        text: "It shipped.",
        toolCalls: [],
        stopReason: "end",
        usage: { inputTokens: 120, outputTokens: 30 },
      },
    });
    const second = await model.generate(conversation());
    expect(second.ok && second.turn.stopReason).toBe("max_tokens");
  });

  it("flags invalid tool-call argument JSON on the call instead of failing the turn", async () => {
    const { model } = await setup([
      completion(
        {
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "lookup_order", arguments: '{"orderId": 7' } },
            { id: "c2", type: "function", function: { name: "lookup_order", arguments: "[1,2]" } },
          ],
        },
        "tool_calls",
      ),
    ]);
    const result = await model.generate(conversation());
    if (!result.ok) throw new Error(result.detail);
    const [bad, notObject] = result.turn.toolCalls;
    expect(bad?.input).toBeUndefined();
    expect(bad?.malformedInput?.raw).toBe('{"orderId": 7');
    expect(bad?.malformedInput?.error).toMatch(/JSON/);
    expect(notObject?.malformedInput).toEqual({ raw: "[1,2]", error: "arguments are not a JSON object" });
  });

  it("replays a malformed call's raw arguments so the transcript stays faithful", async () => {
    const { model, server } = await setup([completion({ content: "ok" }, "stop")]);
    await model.generate(
      conversation({
        messages: [
          {
            role: "assistant",
            text: "",
            toolCalls: [
              {
                id: "c1",
                name: "lookup_order",
                input: undefined,
                malformedInput: { raw: "{oops", error: "x" },
              },
            ],
          },
        ],
      }),
    );
    const body = JSON.parse(server.requests[0]?.body ?? "");
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "lookup_order", arguments: "{oops" } }],
    });
  });

  it("retries throttling with backoff, honouring retry-after, then succeeds", async () => {
    const { model, server, slept } = await setup([
      {
        status: 429,
        headers: { "retry-after": "2" },
        body: { error: { message: "Rate limit reached", type: "requests" } },
      },
      { status: 429, body: { error: { message: "Rate limit reached" } } },
      completion({ content: "done" }, "stop"),
    ]);
    const result = await model.generate(conversation());
    expect(result.ok).toBe(true);
    expect(server.requests).toHaveLength(3);
    // 2 s from retry-after, then the second backoff step (2000 ms) with the jitter pinned at 0.5.
    expect(slept.delays).toEqual([2000, 1500]);
  });

  it("gives up after the bounded attempts with a retryable model-throttled failure", async () => {
    const { model, server, slept } = await setup([
      { status: 429, body: { error: { message: "slow down" } } },
    ]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-throttled", retryable: true });
    expect(server.requests).toHaveLength(3);
    expect(slept.delays).toHaveLength(2);
  });

  it("reports a 2xx body that is not JSON as model-malformed-response", async () => {
    const { model } = await setup([{ status: 200, body: "<html>proxy error</html>" }]);
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-malformed-response",
      retryable: false,
    });
  });

  it("reports JSON of the wrong shape as model-malformed-response naming the field", async () => {
    const { model } = await setup([{ body: { choices: [] } }]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-malformed-response" });
    expect(!result.ok && result.detail).toMatch(/choices/);
  });

  it("retries a 500 once, then fails retryable", async () => {
    const { model, server } = await setup([{ status: 500, body: { error: { message: "boom" } } }]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-http-error", retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it("fails a 400 at once, not retryable", async () => {
    const { model, server } = await setup([{ status: 400, body: { error: { message: "bad tools" } } }]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-http-error", retryable: false });
    expect(!result.ok && result.detail).toContain("bad tools");
    expect(server.requests).toHaveLength(1);
  });

  it("maps 401 to model-auth and redacts the key the server echoes back", async () => {
    const { model, server } = await setup([
      {
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${KEY}. Also ${KEY.slice(0, 20)}...` } },
      },
    ]);
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-auth", retryable: false });
    expect(server.requests).toHaveLength(1);
    if (result.ok) throw new Error("expected a failure");
    expect(result.detail).toContain("Incorrect API key provided: [redacted]");
    expect(result.detail).not.toContain(KEY.slice(0, 12));
  });

  it("names only host and path in a failure, never the base URL's query string", async () => {
    server = await startRecordingServer([{ status: 400, body: { error: "bad" } }]);
    const model = openAiCompatibleModel({ baseUrl: `${server.url}/v1?token=hunter2`, model: "m" });
    const result = await model.generate(conversation());
    expect(server.requests[0]?.path).toBe("/v1/chat/completions?token=hunter2");
    expect(!result.ok && result.detail).toBe(
      `127.0.0.1:${new URL(server.url).port}/v1/chat/completions: HTTP 400: bad`,
    );
  });

  it("times out a server that never answers", async () => {
    const { model } = await setup([{ hang: true }], { timeoutMs: 100 });
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-timeout", retryable: true });
  });

  it("reports a refused connection as model-network", async () => {
    const { model, server } = await setup([]);
    await server.close();
    const result = await model.generate(conversation());
    expect(result).toMatchObject({ ok: false, reason: "model-network", retryable: true });
  });

  it("returns model-config without calling the server when the key is unavailable", async () => {
    server = await startRecordingServer([completion({ content: "hi" }, "stop")]);
    const model = openAiCompatibleModel({
      baseUrl: server.url,
      model: "m",
      apiKey: async () => ({
        ok: false,
        reason: "model-config",
        detail: "API key not found: env var X_API_KEY is unset or empty",
      }),
    });
    expect(await model.generate(conversation())).toMatchObject({
      ok: false,
      reason: "model-config",
      retryable: false,
    });
    expect(server.requests).toHaveLength(0);
  });
});
