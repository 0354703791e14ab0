import { randomBytes } from "node:crypto";
import * as z from "zod";
import { PREFIXES, STATE_KEYS } from "../../config/index.ts";
import { PosternError } from "../../errors.ts";
import type { Blobs, KeyValueState } from "../../ports/index.ts";
import { type AttachmentRef, bodyText, type MessageRecord, type MessageStore } from "../../ports/index.ts";
import type { AttachmentMeta, Mailbox, MailboxMessage } from "../../tool-framework/index.ts";
import { inScope, type MailScope, senderEyes, widerThanSender } from "./mail-scope.ts";

/** The store ports a mailbox reads, narrowed to what it calls (tests and other runtimes can hand in fakes). */
export interface MailboxStore {
  readonly messages: Pick<MessageStore, "get" | "listByAgent" | "listByThread">;
  readonly blobs: Pick<Blobs, "get" | "getText" | "put">;
  /** Metadata of agent-created files lives in the `state` table: `pk = file#<agent>`, `sk = <id>`. */
  readonly files: Pick<KeyValueState, "putIfAbsent" | "get">;
}

export interface MailboxDeps extends MailboxStore {
  /** The run's agent. Every lookup is keyed by it: nothing in the Mailbox API can name another (G12). */
  readonly agent: string;
  /** The run's thread; null on a scheduled run (then only files created in this run are "in the thread"). */
  readonly threadId: string | null;
  readonly runId: string;
  /** Whose eyes this mailbox reads with: every search and attachment lookup is filtered by it. */
  readonly scope: MailScope;
  /**
   * Called before a read returns mail wider than the run's sender could see (an `agent` scope): the runtime closes
   * the run's channels (G18). A failure to record that fails the read: nothing wider is returned unrecorded.
   */
  readonly onWiderRead?: () => Promise<void>;
  readonly now?: () => Date;
  /** Newest messages a search looks through. Default 500. */
  readonly maxScan?: number;
  /** Bodies a search reads from S3. Default 100. */
  readonly maxBodyReads?: number;
}

export interface AttachmentScope {
  readonly agent: string;
  /** The agent's whole mailbox (every thread and every file it created). */
  readonly anyThread: boolean;
  /** Else this thread only; null on a threadless (scheduled) run, which then reaches only its own files. */
  readonly threadId: string | null;
  /** Files created by this run count as in scope even on a threadless run. */
  readonly runId: string | null;
  /** Whose eyes: a message's attachment resolves only if the message is in this scope. */
  readonly mail: MailScope;
  readonly onWiderRead?: () => Promise<void>;
}

/** Newest messages an `anyThread` attachment lookup looks through: the lookup is bounded like a search. */
const MAX_ATTACHMENT_SCAN = 1000;

const filesPk = STATE_KEYS.files;
const agentFilesPrefix = (agent: string): string => `${PREFIXES.files}${agent}/`;
/** Created-file ids become part of an S3 key: no `/`, no `..`, nothing to climb out of the agent's prefix with. */
const FILE_ID = /^file-[0-9T]{18}-[0-9a-f]{8}$/;

const fileItem = z.object({
  threadId: z.string().nullable(),
  runId: z.string(),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int().nonnegative(),
  key: z.string(),
});

const metaOf = (a: Pick<AttachmentRef, "id" | "filename" | "contentType" | "size">): AttachmentMeta => ({
  id: a.id,
  // Inbound records store "" for an attachment without a name.
  filename: a.filename || null,
  contentType: a.contentType,
  size: a.size,
});

/**
 * Find attachment `id` within `scope` (G12): among attachments of the scope's messages, then among files the
 * agent created. Anything else, including an id that exists in another agent's mailbox or another thread, is
 * null: "not found", never a different file.
 */
export async function resolveAttachment(
  store: MailboxStore,
  scope: AttachmentScope,
  id: string,
): Promise<{ meta: AttachmentMeta; bytes: Uint8Array } | null> {
  const { agent, threadId, anyThread } = scope;
  if (scope.mail.kind === "none") return resolveFile(store, scope, id);
  const messages = anyThread
    ? await store.messages.listByAgent(agent, { limit: MAX_ATTACHMENT_SCAN })
    : threadId !== null
      ? await store.messages.listByThread(agent, threadId, { newest: MAX_ATTACHMENT_SCAN })
      : [];
  for (const m of messages) {
    // The repository queries one agent's partition; re-check so a repository bug cannot widen the reach.
    if (m.agent !== agent || (!anyThread && m.threadId !== threadId)) continue;
    // Same eyes: another sender's mail is "not found", whatever id the model names.
    if (!inScope(scope.mail, m)) continue;
    const ref = m.attachments?.find((a) => a.id === id);
    // A ref pointing outside this agent's file prefix is corrupt or forged: fail closed.
    if (!ref?.key.startsWith(agentFilesPrefix(agent))) continue;
    const bytes = await store.blobs.get(ref.key);
    if (!bytes) return null;
    if (widerThanSender(scope.mail, m)) await scope.onWiderRead?.();
    return { meta: metaOf(ref), bytes };
  }
  return resolveFile(store, scope, id);
}

/**
 * A file the agent created (create_file). Its contents are the agent's own words, but they may restate any mail the
 * creating run read: so a file from another thread, or another run on a threadless run, is reachable only with the
 * agent's whole archive in scope (and then counts as a wider read, G18).
 */
async function resolveFile(
  store: MailboxStore,
  scope: AttachmentScope,
  id: string,
): Promise<{ meta: AttachmentMeta; bytes: Uint8Array } | null> {
  const { agent, threadId } = scope;
  if (!FILE_ID.test(id)) return null;
  const parsed = fileItem.safeParse(await store.files.get(filesPk(agent), id));
  if (!parsed.success) return null;
  const f = parsed.data;
  const own =
    (threadId !== null && f.threadId === threadId) || (scope.runId !== null && f.runId === scope.runId);
  const wide = scope.anyThread && scope.mail.kind === "agent";
  if (!(own || wide) || f.key !== `${agentFilesPrefix(agent)}${id}`) return null;
  const bytes = await store.blobs.get(f.key);
  if (!bytes) return null;
  if (!own && scope.mail.kind === "agent") await scope.onWiderRead?.();
  return { meta: metaOf({ id, ...f }), bytes };
}

/** The real Mailbox over the store, bound to one agent and thread by the runtime. */
export function createMailbox(deps: MailboxDeps): Mailbox {
  const now = deps.now ?? (() => new Date());
  return {
    search: (query) => searchMailbox(deps, query),
    threadMessage: (id) => readThreadMessage(deps, id),
    attachment(id, opts) {
      const scope = {
        agent: deps.agent,
        anyThread: opts?.anyThread === true,
        threadId: deps.threadId,
        runId: deps.runId,
        mail: deps.scope,
        ...(deps.onWiderRead ? { onWiderRead: deps.onWiderRead } : {}),
      };
      return resolveAttachment(deps, scope, id);
    },
    async createFile(file) {
      const id = newFileId(now());
      const key = `${agentFilesPrefix(deps.agent)}${id}`;
      // Bytes first, metadata second: metadata never points at a missing object.
      await deps.blobs.put(key, file.bytes, file.contentType);
      const meta = { filename: file.filename, contentType: file.contentType, size: file.bytes.byteLength };
      const put = await deps.files.putIfAbsent(filesPk(deps.agent), id, {
        ...meta,
        key,
        threadId: deps.threadId,
        runId: deps.runId,
        createdAt: now().toISOString(),
      });
      if (!put.ok) throw new PosternError("write-contended", `file id ${id} collided`);
      return { id, ...meta };
    },
  };
}

/**
 * The outbound function's attachment loader (send_email attachments by id): the same resolution, for the
 * request's agent; `threadId` narrows to the reply's thread, null means the agent's whole mailbox.
 */
export function createAttachmentSource(store: MailboxStore) {
  return {
    load: (agent: string, id: string, threadId: string | null) =>
      // Not a model's read: the outbound attaches ids a run already resolved through its own scoped mailbox.
      resolveAttachment(
        store,
        { agent, anyThread: threadId === null, threadId, runId: null, mail: { kind: "agent", sender: null } },
        id,
      ),
  };
}

export function newFileId(at: Date): string {
  return `file-${at.toISOString().replace(/[-:.Z]/g, "")}-${randomBytes(4).toString("hex")}`;
}

/**
 * read_email's lookup: one message by id, only in this agent's partition and this run's thread, only if
 * the run's sender could see it (G12, same eyes; never widened, see Mailbox.threadMessage). Anything else is
 * null, "not found": an id from another thread, agent or sender reveals nothing, not even that it exists.
 */
async function readThreadMessage(
  deps: MailboxDeps,
  id: string,
): Promise<{ message: MailboxMessage; text: string } | null> {
  const eyes = senderEyes(deps.scope);
  if (deps.threadId === null || eyes.kind === "none") return null;
  const m = await deps.messages.get(deps.agent, id);
  // The repository reads one agent's partition; re-check so a repository bug cannot widen the reach.
  if (!m || m.agent !== deps.agent || m.threadId !== deps.threadId || !inScope(eyes, m)) return null;
  // An HTML-only mail shows no body (G8), here as in round 1.
  const text = m.hasHtmlOnly ? "" : ((await bodyText(m, (k) => deps.blobs.getText(k))) ?? "");
  const { snippet: _none, ...message } = toHit(m, null, []);
  return { message, text };
}

type MailboxHit = MailboxMessage & { readonly snippet: string };
const SNIPPET_CHARS = 240;
const BODY_BATCH = 8;

async function searchMailbox(
  deps: MailboxDeps,
  query: { readonly text?: string; readonly participant?: string; readonly limit: number },
): Promise<readonly MailboxHit[]> {
  const limit = Math.max(1, Math.min(50, Math.floor(query.limit)));
  const terms = (query.text ?? "").toLowerCase().split(/\s+/).filter(Boolean).slice(0, 10);
  const who = query.participant?.trim().toLowerCase() ?? "";
  if (deps.scope.kind === "none") return [];
  // Newest first: ids are time-ordered within the agent's partition; only this agent's partition is read, and
  // within it only mail in the run's scope (another sender's mail is never searched or quoted).
  const recent = (await deps.messages.listByAgent(deps.agent, { limit: deps.maxScan ?? 500 })).filter(
    (m) =>
      m.agent === deps.agent &&
      inScope(deps.scope, m) &&
      (!who || participants(m).some((a) => a.toLowerCase().includes(who))),
  );
  let bodyBudget = deps.maxBodyReads ?? 100;
  const hits: MailboxHit[] = [];
  for (let i = 0; i < recent.length && hits.length < limit; i += BODY_BATCH) {
    const page = recent.slice(i, i + BODY_BATCH);
    const bodies = await Promise.all(
      page.map((m) => {
        // An HTML-only mail shows no body (G8), so it is neither searched nor quoted.
        if (m.hasHtmlOnly || bodyBudget <= 0) return Promise.resolve(null);
        bodyBudget--;
        return bodyText(m, (k) => deps.blobs.getText(k));
      }),
    );
    page.forEach((m, j) => {
      const body = bodies[j] ?? null;
      const hay = [m.subject, ...participants(m), body ?? ""].join("\n").toLowerCase();
      if (hits.length < limit && terms.every((t) => hay.includes(t))) hits.push(toHit(m, body, terms));
    });
  }
  if (recent.some((m) => hits.some((h) => h.id === m.id) && widerThanSender(deps.scope, m)))
    await deps.onWiderRead?.();
  return hits;
}

const participants = (m: MessageRecord): string[] => [m.from, ...(m.to ?? []), ...(m.cc ?? [])];

function toHit(m: MessageRecord, body: string | null, terms: readonly string[]): MailboxHit {
  return {
    id: m.id,
    threadId: m.threadId,
    direction: m.direction,
    from: m.from,
    to: m.to ?? [],
    cc: m.cc ?? [],
    subject: m.subject ?? null,
    at: m.at,
    attachments: (m.attachments ?? []).map(metaOf),
    snippet: body ? snippetOf(body, terms) : "",
  };
}

function snippetOf(body: string, terms: readonly string[]): string {
  const flat = body.replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  const at = terms.map((t) => lower.indexOf(t)).find((i) => i >= 0) ?? 0;
  const start = Math.max(0, at - SNIPPET_CHARS / 3);
  const piece = flat.slice(start, start + SNIPPET_CHARS);
  return `${start > 0 ? "…" : ""}${piece}${start + SNIPPET_CHARS < flat.length ? "…" : ""}`;
}
