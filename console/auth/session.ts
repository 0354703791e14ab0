import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { ConsoleEnv } from "../env.ts";

/** The session cookie holds the ID token itself: HttpOnly (no script reads it), SameSite=Lax, Secure in AWS. */
export interface SessionCookie {
  readonly name: string;
  readonly secure: boolean;
}

/** In AWS the `__Host-` prefix pins the cookie to this origin (Secure, Path=/, no Domain); locally plain HTTP. */
export const sessionCookie = (secure: boolean): SessionCookie => ({
  name: secure ? "__Host-postern-session" : "postern-session",
  secure,
});

export function readSession(c: Context<ConsoleEnv>, cookie: SessionCookie): string | undefined {
  return getCookie(c, cookie.name);
}

export function writeSession(
  c: Context<ConsoleEnv>,
  cookie: SessionCookie,
  token: string,
  maxAge: number,
): void {
  setCookie(c, cookie.name, token, {
    httpOnly: true,
    secure: cookie.secure,
    sameSite: "Lax",
    path: "/",
    maxAge: Math.max(0, Math.floor(maxAge)),
  });
}

/**
 * The CSRF token of a session: a hash of the session token, which a cross-site page cannot read (HttpOnly) and so
 * cannot compute. Every form carries it; every state change compares it in constant time. Needs no server secret,
 * and changes with every sign-in.
 */
export function csrfToken(session: string): string {
  return createHash("sha256").update(`postern-console-csrf\0${session}`).digest("base64url");
}

export function csrfMatches(session: string, presented: unknown): boolean {
  if (typeof presented !== "string") return false;
  const want = Buffer.from(csrfToken(session));
  const got = Buffer.from(presented);
  return got.length === want.length && timingSafeEqual(got, want);
}
