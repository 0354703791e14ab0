import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { GROUPS, type Group } from "./principal.ts";

/**
 * The local console's sign-in links. A link holds a token the stack's link key signs (HMAC-SHA256): who signs in,
 * in which groups, until when, and a random nonce. Whoever holds the key mints links: the console at start (the
 * banner's link) and `postern console link`, which reads the key from `<dir>/console.json` (mode 0600, written by
 * the running stack, removed on stop, a fresh key each start). That file is as private as the rest of `.postern/`
 * (raw mail, DKIM keys, the tables): whoever can read it could read those anyway. The console admits a token once
 * (it keeps the nonces it has seen until they expire), so a link that leaked from a terminal's scrollback after
 * use signs nobody in.
 */
export interface LinkClaims {
  readonly email: string;
  readonly groups: readonly Group[];
  /** Epoch milliseconds after which the link is refused. */
  readonly expiresAt: number;
  readonly nonce: string;
}

export type LinkRefusal = "malformed" | "bad-signature" | "expired";

/** How long a link works: long enough to copy from a terminal, short enough that scrollback is not a key. */
export const LINK_TTL_SECONDS = 600;

export function mintLinkToken(
  key: Uint8Array,
  who: { email: string; groups: readonly Group[] },
  expiresAt: number,
): string {
  const claims: LinkClaims = {
    email: who.email,
    groups: [...who.groups],
    expiresAt,
    nonce: randomBytes(16).toString("base64url"),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${body}.${mac(key, body)}`;
}

/** The claims of a token this key signed and that has not expired; the nonce check is the caller's (it keeps state). */
export function readLinkToken(
  key: Uint8Array,
  token: string,
  now: number,
): { ok: true; claims: LinkClaims } | { ok: false; reason: LinkRefusal } {
  const [body, sig, extra] = token.split(".");
  if (!body || !sig || extra !== undefined || token.length > 2048) return { ok: false, reason: "malformed" };
  const want = Buffer.from(mac(key, body));
  const got = Buffer.from(sig);
  if (got.length !== want.length || !timingSafeEqual(got, want))
    return { ok: false, reason: "bad-signature" };
  const claims = parseClaims(Buffer.from(body, "base64url").toString("utf8"));
  if (!claims) return { ok: false, reason: "malformed" };
  if (claims.expiresAt < now) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}

function mac(key: Uint8Array, body: string): string {
  return createHmac("sha256", key).update(`postern-console-link\0${body}`).digest("base64url");
}

function parseClaims(text: string): LinkClaims | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const c = v as Partial<LinkClaims> | null;
  const known = new Set<string>(Object.values(GROUPS));
  if (
    !c ||
    typeof c.email !== "string" ||
    typeof c.expiresAt !== "number" ||
    typeof c.nonce !== "string" ||
    !Array.isArray(c.groups) ||
    !c.groups.every((g) => typeof g === "string" && known.has(g))
  )
    return null;
  return { email: c.email, groups: c.groups as Group[], expiresAt: c.expiresAt, nonce: c.nonce };
}
