import { describe, expect, it } from "vitest";
import {
  capResultText,
  MAX_ERROR_DETAIL_CHARS,
  MAX_RESULT_TEXT_BYTES,
  toModelToolResult,
} from "../../../shared/agent/loop/tool-result.ts";
import { success, toolFailure } from "../../../shared/tool-framework/tool.ts";

// No single tool result can grow the transcript (and every later model request) past its cap.

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
const shown = (r: ReturnType<typeof toModelToolResult>) =>
  r.content.type === "json" ? r.content.value : r.content.text;

describe("toModelToolResult: the transcript's cap on a result's text", () => {
  it("passes a result under the cap untouched", () => {
    const data = { url: "https://x.example", text: "hello" };
    expect(shown(toModelToolResult("c1", success(data)))).toEqual(data);
  });

  it("cuts the longest text of an oversized result, keeps its shape, and says how much is missing", () => {
    const page = `${"w".repeat(300_000)}TAIL`;
    const value = shown(toModelToolResult("c1", success({ status: 200, title: "T", text: page }))) as {
      status: number;
      title: string;
      text: string;
    };
    expect(bytes(value)).toBeLessThanOrEqual(MAX_RESULT_TEXT_BYTES);
    expect(value.status).toBe(200);
    expect(value.title).toBe("T");
    expect(value.text).toMatch(/…\[cut: [\d,]+ of 300,004 characters not shown\]$/);
    expect(value.text).not.toContain("TAIL");
    expect(value.text.length).toBeGreaterThan(60_000);
  });

  it("holds multi-byte and escaped text to the cap too (bytes, not characters)", () => {
    const value = capResultText({ text: '"漢\n'.repeat(100_000), more: "😀".repeat(50_000) });
    expect(bytes(value)).toBeLessThanOrEqual(MAX_RESULT_TEXT_BYTES);
    expect(JSON.stringify(value)).not.toContain('\\ud83d"'); // no half pair left at a cut
  });

  it("a result too big in its structure alone becomes a marked preview", () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ i, ok: true }));
    const value = capResultText({ rows }) as { truncated: boolean; bytes: number; preview: string };
    expect(bytes(value)).toBeLessThanOrEqual(MAX_RESULT_TEXT_BYTES);
    expect(value).toMatchObject({ truncated: true, bytes: bytes({ rows }) });
    expect(value.preview.startsWith('{"rows":[{"i":0')).toBe(true);
  });

  it("caps the text a tool's content blocks add beside its data", () => {
    const r = toModelToolResult("c1", success({ id: 1 }, [{ type: "text", text: "t".repeat(200_000) }]));
    expect(bytes(shown(r))).toBeLessThanOrEqual(MAX_RESULT_TEXT_BYTES);
  });

  it("caps a failure's message", () => {
    const r = toModelToolResult("c1", toolFailure("x-failed", "d".repeat(100_000)));
    const v = shown(r) as { error: string; message: string };
    expect(v.error).toBe("x-failed");
    expect(v.message.length).toBeLessThan(MAX_ERROR_DETAIL_CHARS + 100);
  });

  it("leaves images and PDFs to the dispatcher's result cap (they are not text)", () => {
    const png = "A".repeat(200_000);
    const r = toModelToolResult(
      "c1",
      success({ id: "a" }, [{ type: "image", mediaType: "image/png", base64: png }]),
    );
    expect(r.attachments?.[0]).toMatchObject({ type: "image", data: png });
  });
});
