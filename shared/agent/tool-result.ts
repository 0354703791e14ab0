import type { MediaBlock, ToolResult as ModelToolResult } from "../model/types.ts";
import type { ToolResult } from "../tool-framework/tool.ts";

/** Map a tool's result to what the model reads. Failures carry their stable reason so the model can react. */
export function toModelToolResult(callId: string, result: ToolResult): ModelToolResult {
  if (!result.ok) {
    return {
      toolCallId: callId,
      isError: true,
      content: { type: "json", value: { error: result.reason, message: result.detail } },
    };
  }
  const attachments: MediaBlock[] = [];
  const texts: string[] = [];
  for (const c of result.content ?? []) {
    if (c.type === "text") texts.push(c.text);
    else if (c.type === "image") attachments.push({ type: "image", mediaType: c.mediaType, data: c.base64 });
    else
      attachments.push({
        type: "document",
        mediaType: c.mediaType,
        data: c.base64,
        name: c.name ?? "attachment",
      });
  }
  const value = texts.length > 0 ? { data: result.data, text: texts.join("\n") } : result.data;
  return {
    toolCallId: callId,
    isError: false,
    content: { type: "json", value: value ?? null },
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}
