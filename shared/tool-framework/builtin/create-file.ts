import * as z from "zod";
import { defineTool, success, type Tool, type ToolResult, toolFailure } from "../tool.ts";

/** The text formats an agent may author, and the MIME type each is stored (and later attached) with. */
export const FILE_TYPES = {
  csv: "text/csv; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
  json: "application/json",
  svg: "image/svg+xml",
} as const;
export type FileType = keyof typeof FILE_TYPES;

/** create_file's failure codes (docs/tools/create_file.md). */
export type CreateFileReason = "file-too-large" | "file-content-invalid";

export const DEFAULT_MAX_FILE_BYTES = 256 * 1024;

export interface CreateFileOptions {
  /** UTF-8 bytes of content. Default 256 KiB (the dispatcher's input cap bounds it as well). */
  readonly maxBytes?: number;
}

const input = z
  .object({
    filename: z
      .string()
      .min(1)
      .max(255)
      .describe("File name, e.g. report.csv; the extension follows contentType."),
    contentType: z.enum(Object.keys(FILE_TYPES) as [FileType, ...FileType[]]).describe("Format of the file."),
    content: z.string().describe("The whole file content, as text."),
  })
  .strict();

export function makeCreateFileTool(opts: CreateFileOptions = {}): Tool {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  return defineTool({
    name: "create_file",
    description:
      `Create a text file (csv, txt, md, html, json or svg; at most ${Math.floor(maxBytes / 1024)} KB) that you ` +
      "can attach to an email: pass the returned id in send_email's attachments. The file is stored in your " +
      "mailbox; nothing is sent until you send it.",
    summary: "Author a small text file (csv, txt, md, html, json, svg) the agent can attach.",
    input,
    // The result is an id, a name, a type and a size: no record content.
    egress: { kind: "structure" },
    sideEffects: { kind: "internal" },
    async use(ctx, { filename, contentType, content }): Promise<ToolResult<CreateFileReason>> {
      const bytes = new TextEncoder().encode(content);
      if (bytes.byteLength > maxBytes) {
        return toolFailure("file-too-large", `${bytes.byteLength} bytes; at most ${maxBytes}`);
      }
      const invalid = contentProblem(contentType, content);
      if (invalid) return toolFailure("file-content-invalid", invalid);
      const meta = await ctx.mailbox.createFile({
        filename: sanitizeFilename(filename, contentType),
        contentType: FILE_TYPES[contentType],
        bytes,
      });
      return success({
        id: meta.id,
        filename: meta.filename,
        contentType: meta.contentType,
        size: meta.size,
      });
    },
  });
}

function contentProblem(type: FileType, content: string): string | null {
  if (type === "json") {
    try {
      JSON.parse(content);
    } catch {
      return "content is not valid JSON";
    }
  }
  if (type === "svg" && !/<svg[\s>]/i.test(content)) return "content has no <svg> element";
  return null;
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;
const MAX_BASE = 100;

/**
 * A filename safe in a MIME header and on a recipient's disk: no path (a `../` or `C:\` prefix), no control,
 * bidi or zero-width characters (`invoice\u202Efdp.exe` displays as `invoiceexe.pdf`), no reserved device
 * names, and an extension that matches the stored type, so the name cannot claim a format the bytes are not.
 */
export function sanitizeFilename(name: string, type: FileType): string {
  const last = name.normalize("NFC").split(/[\\/]/).pop() ?? "";
  let base = last
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "")
    .replace(/[^\p{L}\p{N} ._()-]/gu, "_")
    .replace(/\s+/g, " ")
    .replace(/_+/g, "_")
    .replace(/^[\s._]+|[\s.]+$/g, "");
  const dot = base.lastIndexOf(".");
  if (dot > 0) base = base.slice(0, dot).replace(/[\s.]+$/g, "");
  base = [...base].slice(0, MAX_BASE).join("").trim();
  if (!base) base = "file";
  if (WINDOWS_RESERVED.test(base)) base = `_${base}`;
  return `${base}.${type}`;
}
