import { readFileSync } from "node:fs";
import { join } from "node:path";
import PostalMime from "postal-mime";
import { attachmentLimits } from "../../../shared/config/schema.ts";
import { type ComposeInput, composeMime } from "../../../shared/mail/compose.ts";

/** Shared by the mail and outbound tests: compose, then read the result back with an independent parser. */
export const LIMITS = attachmentLimits.parse({});
export const AGENT = { address: "helpdesk@agents.example.com", name: "Helpdesk" };
export const DATE = new Date("2026-11-29T10:00:00Z");

export function baseInput(over: Partial<ComposeInput> = {}): ComposeInput {
  return {
    from: AGENT,
    mode: { kind: "new", subject: "Hello" },
    origin: "agent",
    recipients: { to: ["alice@example.com"], cc: [], bcc: [] },
    body: "Hi there",
    attachments: [],
    messageId: "<m1.postern@agents.example.com>",
    date: DATE,
    limits: LIMITS,
    ...over,
  };
}

export async function readMail(raw: Uint8Array) {
  const email = await PostalMime.parse(raw);
  const header = (k: string): string[] => email.headers.filter((h) => h.key === k).map((h) => h.value);
  return { email, header, text: Buffer.from(raw).toString("latin1") };
}

export async function composeAndParse(input: ComposeInput) {
  const r = await composeMime(input);
  if (!r.ok) throw new Error(r.reason);
  return { r, ...(await readMail(r.raw)) };
}

export const threadFixture = (name: string): Buffer =>
  readFileSync(join(import.meta.dirname, "../../fixtures/threads", name));
