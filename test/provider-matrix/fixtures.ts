// The provider corpus (test/fixtures/provider-shapes): each big sender's DKIM h= as seen, with provenance.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";

export const SHAPES_DIR = join(import.meta.dirname, "../fixtures/provider-shapes");

/** An h= list as one signer wrote it, and where it was seen; or why no such shape is in the corpus. */
const shape = z.union([
  z.strictObject({ h: z.string().min(1), seen: z.string().min(1) }),
  z.strictObject({ notSeen: z.string().min(1) }),
]);
export type Shape = z.infer<typeof shape>;

const list = z.strictObject({
  address: z.string(),
  subjectPrefix: z.string(),
  footer: z.string(),
  headers: z.array(z.string()),
  /** The list's own signature (d= the list's domain, never the author's: it proves nothing about the From). */
  signer: z.strictObject({ domain: z.string(), selector: z.string(), h: z.string() }).optional(),
  seen: z.string().min(1),
});
export type ListShape = z.infer<typeof list>;

const sender = z.strictObject({
  id: z.string(),
  provider: z.string(),
  from: z.string(),
  colleague: z.string(),
  /** The d= when it is not the From's domain (a Microsoft 365 tenant's default onmicrosoft.com key). */
  signingDomain: z.string().optional(),
  selector: z.string(),
  messageId: z.string(),
  replyCarries: z.array(z.enum(["in-reply-to", "references"])),
  prefix: z.strictObject({ reply: z.string(), forward: z.string() }),
  fresh: shape,
  reply: shape,
  /** A new mail carrying a Cc; `fresh` when absent. */
  cc: shape.optional(),
});
export type SenderShape = z.infer<typeof sender>;

const listOnly = z.strictObject({
  id: z.string(),
  provider: z.string(),
  listOnly: z.literal(true),
  /** The sender fixture whose mail the list distributes. */
  author: z.string(),
  list,
});
export type ListOnlyShape = z.infer<typeof listOnly>;

export type ProviderShape = SenderShape | ListOnlyShape;
const providerShape = z.union([sender, listOnly]);

/** Every fixture, in the table's order: senders as listed in ORDER, then lists. */
export function loadShapes(): ProviderShape[] {
  const byId = new Map<string, ProviderShape>();
  for (const file of readdirSync(SHAPES_DIR).filter((f) => f.endsWith(".json"))) {
    const parsed = providerShape.parse(JSON.parse(readFileSync(join(SHAPES_DIR, file), "utf8")));
    if (`${parsed.id}.json` !== file) throw new TypeError(`${file}: id ${parsed.id} is not its file name`);
    byId.set(parsed.id, parsed);
  }
  const missing = ORDER.filter((id) => !byId.has(id));
  const unlisted = [...byId.keys()].filter((id) => !ORDER.includes(id));
  if (missing.length || unlisted.length)
    throw new TypeError(
      `provider-shapes: missing ${missing.join(", ")}; not in ORDER ${unlisted.join(", ")}`,
    );
  return ORDER.map((id) => byId.get(id) as ProviderShape);
}

/** The table's rows, business mail first. */
export const ORDER = [
  "exchange-online",
  "exchange-online-onmicrosoft",
  "outlook-com",
  "gmail",
  "google-workspace",
  "yahoo",
  "aol",
  "icloud",
  "fastmail",
  "proton",
  "zoho",
  "amazon-ses",
  "sendgrid",
  "mailgun",
  "postmark",
  "google-groups",
  "mailman3",
];

export const isListOnly = (p: ProviderShape): p is ListOnlyShape => "listOnly" in p;

/** The field names of an h= tag value, in order, duplicates kept (RFC 6376 §3.5: colon-separated, FWS allowed). */
export const headerNames = (h: string): string[] =>
  h
    .split(":")
    .map((n) => n.trim())
    .filter((n) => n !== "");
