import { describe, expect, it } from "vitest";
import { createMailbox } from "../../../shared/agent/mailbox/mailbox.ts";
import { makeCreateFileTool, sanitizeFilename } from "../../../shared/tool-framework/builtin/create-file.ts";
import { makeReadAttachmentTool } from "../../../shared/tool-framework/builtin/read-attachment.ts";
import { WHOLE } from "../../fakes/builders.ts";
import { MemoryMailboxStore } from "./memory-mailbox-store.ts";
import { toolContext } from "./tool-context.ts";

const A = "helpdesk@agents.example.net";
const read = makeReadAttachmentTool();

function setup(threadId: string | null = "t1", runId = "run-1") {
  const store = new MemoryMailboxStore();
  const ctx = (t: string | null = threadId, r = runId, agent = A) =>
    toolContext(createMailbox({ ...store, agent, threadId: t, runId: r, scope: WHOLE }), agent);
  return { store, ctx };
}

describe("create_file", () => {
  it("stores the file under the agent's files prefix and returns an id read_attachment resolves", async () => {
    const { store, ctx } = setup();
    const r = await makeCreateFileTool().use(ctx(), {
      filename: "Q3 report.csv",
      contentType: "csv",
      content: "region,total\nnorth,12\n",
    });
    expect(r.ok).toBe(true);
    const data = (r.ok ? r.data : {}) as { id: string; filename: string; contentType: string; size: number };
    expect(data).toMatchObject({
      filename: "Q3 report.csv",
      contentType: "text/csv; charset=utf-8",
      size: 22,
    });
    expect(data.id).toMatch(/^file-\d{8}T\d{9}-[0-9a-f]{8}$/);
    expect([...store.blobs.objects.keys()]).toEqual([`files/${A}/${data.id}`]);
    expect(await read.use(ctx(), { id: data.id })).toMatchObject({
      ok: true,
      data: { text: "region,total\nnorth,12\n" },
    });
  });

  it("a created file is in scope for its thread and its run only (other threads need anyThread)", async () => {
    const { ctx } = setup();
    const r = await makeCreateFileTool().use(ctx(), { filename: "a", contentType: "txt", content: "hi" });
    const id = (r.ok ? r.data : {}) as { id: string };
    expect(await read.use(ctx("t2", "run-2"), id)).toMatchObject({ reason: "attachment-not-found" });
    expect(await read.use(ctx("t2", "run-2"), { ...id, anyThread: true })).toMatchObject({ ok: true });
    expect(await read.use(ctx("t1", "run-9"), id)).toMatchObject({ ok: true });
    expect(
      await read.use(ctx("t1", "run-1", "sales@agents.example.net"), { ...id, anyThread: true }),
    ).toMatchObject({
      reason: "attachment-not-found",
    });
  });

  it("a threadless (scheduled) run reaches the files it created itself", async () => {
    const { ctx } = setup(null, "run-s");
    const r = await makeCreateFileTool().use(ctx(), {
      filename: "digest",
      contentType: "md",
      content: "# Digest",
    });
    const id = (r.ok ? r.data : {}) as { id: string };
    expect(await read.use(ctx(), id)).toMatchObject({ ok: true, data: { text: "# Digest" } });
    expect(await read.use(ctx(null, "run-other"), id)).toMatchObject({ reason: "attachment-not-found" });
  });

  it("caps the size and checks json and svg content", async () => {
    const { ctx } = setup();
    const tool = makeCreateFileTool({ maxBytes: 10 });
    expect(
      await tool.use(ctx(), { filename: "a", contentType: "txt", content: "é".repeat(6) }),
    ).toMatchObject({
      ok: false,
      reason: "file-too-large",
    });
    const big = makeCreateFileTool();
    expect(await big.use(ctx(), { filename: "a", contentType: "json", content: "{oops" })).toMatchObject({
      reason: "file-content-invalid",
    });
    expect(
      await big.use(ctx(), { filename: "a", contentType: "svg", content: "<html></html>" }),
    ).toMatchObject({
      reason: "file-content-invalid",
    });
    expect(
      await big.use(ctx(), {
        filename: "a",
        contentType: "svg",
        content: '<svg xmlns="http://www.w3.org/2000/svg"/>',
      }),
    ).toMatchObject({ ok: true });
    expect(big.input.safeParse({ filename: "a", contentType: "exe", content: "" }).success).toBe(false);
  });

  it.each([
    ["report.csv", "csv", "report.csv"],
    ["report", "csv", "report.csv"],
    ["report.exe", "txt", "report.txt"],
    ["../../etc/passwd", "txt", "passwd.txt"],
    ["C:\\Users\\x\\evil.html", "html", "evil.html"],
    ["invoice\u202Efdp.exe", "txt", "invoicefdp.txt"],
    ["zero\u200Bwidth.md", "md", "zerowidth.md"],
    ["line\r\nbreak.txt", "txt", "linebreak.txt"],
    ['quote"s<and>|pipes?.json', "json", "quote_s_and_pipes_.json"],
    ["...hidden", "txt", "hidden.txt"],
    ["CON.txt", "txt", "_CON.txt"],
    ["", "txt", "file.txt"],
    ["...", "txt", "file.txt"],
    ["Résumé.md", "md", "Résumé.md"],
    [`${"a".repeat(300)}.csv`, "csv", `${"a".repeat(100)}.csv`],
  ] as const)("sanitizeFilename(%j, %s) = %j", (name, type, expected) => {
    expect(sanitizeFilename(name, type)).toBe(expected);
  });

  it("declares internal side effects and structure egress", () => {
    const tool = makeCreateFileTool();
    expect(tool.sideEffects).toEqual({ kind: "internal" });
    expect(tool.egress).toEqual({ kind: "structure" });
  });
});
