import { beforeEach, describe, expect, it } from "vitest";
import type { MailScope } from "../../../shared/agent/mailbox/mail-scope.ts";
import { createMailbox } from "../../../shared/agent/mailbox/mailbox.ts";
import { HTML_ONLY_NOTICE } from "../../../shared/gate/fence.ts";
import type { MessageRecord } from "../../../shared/ports/messages.ts";
import {
  makeReadEmailTool,
  READ_EMAIL_MAX_BYTES,
} from "../../../shared/tool-framework/builtin/read-email.ts";
import type { ToolContext } from "../../../shared/tool-framework/context.ts";
import { addMessage, MemoryMailboxStore } from "./memory-mailbox-store.ts";
import { toolContext } from "./tool-context.ts";

// read_email: reads on in a cut mail, one bounded, fenced slice at a time, only within the run's thread
// and only what the run's sender could see (G12, same eyes), whatever scope a toolkit widened the call to.

const A = "helpdesk@agents.example.net";
const B = "sales@agents.example.net";
const ALICE = "alice@example.com"; // the run's sender (toolContext)
const BOB = "bob@example.com";
const tool = makeReadEmailTool();

let store: MemoryMailboxStore;
let long: MessageRecord;
const BODY = `${"a".repeat(40_000)}MIDDLE${"b".repeat(40_000)}END`;

function ctx(opts: { scope?: MailScope; threadId?: string | null; agent?: string; current?: string } = {}) {
  const agent = opts.agent ?? A;
  const base = toolContext(
    createMailbox({
      ...store,
      agent,
      threadId: opts.threadId === undefined ? "t1" : opts.threadId,
      runId: "run-1",
      scope: opts.scope ?? { kind: "sender", sender: ALICE },
    }),
    agent,
  );
  return {
    ...base,
    trigger: {
      kind: "message",
      message: { id: opts.current ?? long.id, threadId: "t1", subject: "Hello", headerMessageId: "h@x" },
    },
  } satisfies ToolContext;
}

type Slice = { total: number; offset: number; end: number; nextOffset: number | null; text: string };
async function read(c: ToolContext, input: Record<string, unknown>): Promise<Slice> {
  const r = await tool.use(c, input);
  if (!r.ok) throw new Error(`${r.reason}: ${r.detail}`);
  return r.data as Slice;
}

/** The sender's text inside a slice's fence, without the prefixes and the fence's own lines. */
const inner = (fenced: string) =>
  fenced
    .split("\n")
    .filter((l) => l.startsWith("| "))
    .map((l) => l.slice(2))
    .join("\n");

beforeEach(() => {
  store = new MemoryMailboxStore();
  long = addMessage(store, { agent: A, threadId: "t1", from: ALICE }, BODY);
});

describe("read_email", () => {
  it("reads the current mail by default, in fenced slices that chain by nextOffset to the whole text", async () => {
    let offset = 0;
    let rebuilt = "";
    for (let i = 0; i < 10; i++) {
      const s = await read(ctx(), { offset });
      expect(s.text.split("\n")[0]).toMatch(/^<<<UNTRUSTED MAIL [0-9a-f]{24}>>>$/);
      expect(s.text.split("\n").at(-1)).toMatch(/^<<<END UNTRUSTED MAIL [0-9a-f]{24}>>>$/);
      expect(s.end - s.offset).toBeLessThanOrEqual(32_000);
      rebuilt += inner(s.text);
      if (s.nextOffset === null) break;
      expect(s.text).toContain(`call read_email with id="${long.id}" and offset=${s.nextOffset}]`);
      offset = s.nextOffset;
    }
    expect(rebuilt).toBe(BODY);
  });

  it("starts where the note says", async () => {
    const s = await read(ctx(), { id: long.id, offset: 40_000 });
    expect(inner(s.text).startsWith("MIDDLE")).toBe(true);
    expect(s.total).toBe(BODY.length);
  });

  it("keeps each answer under its byte budget, even for text that escapes or encodes to many bytes", async () => {
    const heavy = addMessage(store, { agent: A, threadId: "t1", from: ALICE }, '\n"漢'.repeat(60_000));
    const s = await read(ctx(), { id: heavy.id });
    expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(READ_EMAIL_MAX_BYTES);
    // Shrunk, not refused: still thousands of characters a slice.
    expect(s.end).toBeGreaterThan(5_000);
    expect(s.nextOffset).toBe(s.end);
    expect(s.text.split("\n").at(-1)).toMatch(/^<<<END UNTRUSTED MAIL/);
  });

  it("says where the text ends", async () => {
    const r = await tool.use(ctx(), { offset: BODY.length });
    expect(r).toMatchObject({ ok: false, reason: "email-offset-past-end" });
  });

  it("shows no body of an HTML-only mail (G8)", async () => {
    const html = addMessage(store, { agent: A, threadId: "t1", from: ALICE, hasHtmlOnly: true }, "");
    expect((await read(ctx(), { id: html.id })).text).toBe(HTML_ONLY_NOTICE);
  });

  describe("reach (G12, same eyes)", () => {
    it("another sender's mail in the same thread is not found", async () => {
      const bobs = addMessage(store, { agent: A, threadId: "t1", from: BOB, to: [A] }, "BOB-ONLY");
      expect(await tool.use(ctx(), { id: bobs.id })).toMatchObject({ ok: false, reason: "email-not-found" });
    });

    it("mail the sender was sent (a Cc) is readable", async () => {
      const cc = addMessage(store, { agent: A, threadId: "t1", from: BOB, to: [A], cc: [ALICE] }, "CC-TEXT");
      expect(inner((await read(ctx(), { id: cc.id })).text)).toBe("CC-TEXT");
    });

    it("a staff toolkit's widened scope does not widen it: still the sender's own eyes", async () => {
      const bobs = addMessage(store, { agent: A, threadId: "t1", from: BOB, to: [A] }, "BOB-ONLY");
      const widened = ctx({ scope: { kind: "agent", sender: ALICE } });
      expect(await tool.use(widened, { id: bobs.id })).toMatchObject({
        ok: false,
        reason: "email-not-found",
      });
      const noSender = ctx({ scope: { kind: "agent", sender: null } });
      expect(await tool.use(noSender, { id: long.id })).toMatchObject({
        ok: false,
        reason: "email-not-found",
      });
    });

    it("mail of another thread, or another agent, is not found", async () => {
      const other = addMessage(store, { agent: A, threadId: "t2", from: ALICE }, "OTHER-THREAD");
      expect(await tool.use(ctx(), { id: other.id })).toMatchObject({ ok: false, reason: "email-not-found" });
      const bAgent = addMessage(store, { agent: B, threadId: "t1", from: ALICE }, "AGENT-B");
      expect(await tool.use(ctx(), { id: bAgent.id })).toMatchObject({
        ok: false,
        reason: "email-not-found",
      });
    });

    it("a threadless run or a run without eyes reads nothing", async () => {
      expect(await tool.use(ctx({ threadId: null }), { id: long.id })).toMatchObject({
        ok: false,
        reason: "email-not-found",
      });
      expect(await tool.use(ctx({ scope: { kind: "none" } }), { id: long.id })).toMatchObject({
        ok: false,
        reason: "email-not-found",
      });
    });
  });
});
