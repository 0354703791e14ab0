import type { ModelRequest, ToolDeclaration } from "../../../shared/model/types.ts";

export const lookupTool: ToolDeclaration = {
  name: "lookup_order",
  description: "Look up an order by number.",
  inputSchema: {
    type: "object",
    properties: { orderId: { type: "string" } },
    required: ["orderId"],
    additionalProperties: false,
  },
};

/** 1x1 transparent PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
export const PDF_BASE64 = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");

/** A two-round conversation exercising every block kind: the adapters' mapping tests all start from it. */
export function conversation(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "You are the helpdesk agent.",
    maxTokens: 512,
    tools: [lookupTool],
    messages: [
      { role: "user", content: [{ type: "text", text: "Where is order 42?" }] },
      {
        role: "assistant",
        text: "Let me check.",
        toolCalls: [
          { id: "call_a", name: "lookup_order", input: { orderId: "42" } },
          { id: "call_b", name: "lookup_order", input: { orderId: "43" } },
        ],
      },
      {
        role: "tool",
        results: [
          {
            toolCallId: "call_a",
            content: { type: "json", value: { status: "shipped" } },
            isError: false,
            attachments: [
              { type: "image", mediaType: "image/png", data: PNG_BASE64 },
              { type: "document", mediaType: "application/pdf", data: PDF_BASE64, name: "invoice 42" },
            ],
          },
          { toolCallId: "call_b", content: { type: "text", text: "no such order" }, isError: true },
        ],
      },
    ],
    ...overrides,
  };
}

/**
 * A system prompt long enough for a prompt-cache checkpoint on every model (the largest minimum is 4,096 tokens;
 * 20,000 characters is over 5,000 tokens even counted at four characters a token).
 */
export const LONG_SYSTEM = `You are the helpdesk agent. ${"Answer from the order records, briefly and politely. ".repeat(380)}`;
