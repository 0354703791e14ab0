import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";

/** The header block of a mail file: the first 16 KiB, up to the blank line (a reply's headers fit easily). */
function headersOf(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(16 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    const end = text.search(/\r?\n\r?\n/);
    return (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, " ");
  } finally {
    closeSync(fd);
  }
}

const header = (headers: string, name: string): string =>
  new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(headers)?.[1]?.trim() ?? "";

/** The Message-ID header of a raw mail (what its replies name in In-Reply-To), if it has one. */
export function messageIdOf(raw: Uint8Array): string | undefined {
  const text = Buffer.from(raw.subarray(0, 64 * 1024)).toString("utf8");
  const end = text.search(/\r?\n\r?\n/);
  const id = header((end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, " "), "Message-ID");
  return id || undefined;
}

/**
 * The outbox's replies to one mail: each `.eml` whose In-Reply-To names its Message-ID, by the address it is
 * From. The outbox names a file by the id SES gave the reply, which nothing the sender saw carries; the thread
 * header is what ties the two together.
 */
export function repliesTo(outboxDir: string, messageId: string): Map<string, string> {
  const id = messageId.replace(/^<|>$/g, "");
  const found = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(outboxDir).filter((n) => n.endsWith(".eml"));
  } catch {
    return found;
  }
  for (const name of names) {
    const path = join(outboxDir, name);
    const h = headersOf(path);
    if (!header(h, "In-Reply-To").includes(`<${id}>`)) continue;
    const from = /<([^>]+)>/.exec(header(h, "From"))?.[1] ?? header(h, "From");
    found.set(from.toLowerCase(), path);
  }
  return found;
}

/** Polls the outbox until every agent has replied or the time is up: what arrived, by agent. */
export async function waitForReplies(
  outboxDir: string,
  messageId: string,
  agents: readonly string[],
  opts: { readonly timeoutMs: number; readonly pollMs?: number },
): Promise<Map<string, string>> {
  const until = Date.now() + opts.timeoutMs;
  for (;;) {
    const found = repliesTo(outboxDir, messageId);
    if (agents.every((a) => found.has(a)) || Date.now() >= until) return found;
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 250));
  }
}
