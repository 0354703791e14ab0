import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import type { SignInProvider } from "../app.ts";
import type { ConsoleEnv } from "../env.ts";
import { html } from "../views/html.ts";
import { barePage } from "../views/layout.ts";
import { LINK_TTL_SECONDS, mintLinkToken, readLinkToken } from "./link-token.ts";
import { createLocalIssuer, type LocalIssuer } from "./local-issuer.ts";
import { GROUPS, type Group } from "./principal.ts";
import { sessionCookie, writeSession } from "./session.ts";
import { cognitoVerifier } from "./verifier.ts";

export interface LocalOperator {
  readonly email: string;
  readonly groups: readonly Group[];
}

export interface LocalSignIn extends SignInProvider {
  readonly issuer: LocalIssuer;
  /** A sign-in link that works once, within `ttlSeconds` (default 10 minutes). */
  mintLink(origin: string, who?: LocalOperator, ttlSeconds?: number): string;
  /** The key links are signed with (`postern console link` mints with it, from `<dir>/console.json`). */
  readonly linkKey: Uint8Array;
}

/**
 * Local sign-in: `npm start` prints a link holding a one-time token signed with the stack's link key, and
 * `postern console link` mints a fresh one with the same key. Opening it (once, soon) exchanges the token for a
 * session: an ID token the local issuer signs, verified on every request by the Cognito verifier. Without a link
 * there is no way in; the server listens on 127.0.0.1 only.
 */
export function localSignIn(opts: {
  operator: LocalOperator;
  sessionMinutes: number;
  now?: () => Date;
  /** Default: a fresh random key (links then come only from this process). */
  linkKey?: Uint8Array;
}): LocalSignIn {
  const issuer = createLocalIssuer();
  const now = opts.now ?? (() => new Date());
  const linkKey = opts.linkKey ?? randomBytes(32);
  // Nonces already used, until their link expires: a link signs in once, however often it is opened.
  const used = new Map<string, number>();
  const cookie = sessionCookie(false);
  return {
    issuer,
    cookie,
    verifier: cognitoVerifier(issuer.target, issuer.jwks),
    formActionOrigins: [],
    signInPath: "/auth/sign-in",
    signedOutLocation: () => "/auth/signed-out",
    linkKey,
    mintLink(origin, who = opts.operator, ttlSeconds = LINK_TTL_SECONDS) {
      const token = mintLinkToken(linkKey, who, now().getTime() + ttlSeconds * 1000);
      return `${origin}/auth/local?token=${token}`;
    },
    mount(app: Hono<ConsoleEnv>) {
      app.get("/auth/local", (c) => {
        const at = now().getTime();
        for (const [nonce, expiresAt] of used) if (expiresAt < at) used.delete(nonce);
        const read = readLinkToken(linkKey, c.req.query("token") ?? "", at);
        if (!read.ok || used.has(read.claims.nonce))
          return c.html(
            barePage(
              "Sign-in link used or expired",
              html`<p>Each link works once, for 10 minutes. For a new one run <code>npx postern console link</code>.</p>`,
            ),
            401,
          );
        const who = read.claims;
        used.set(who.nonce, who.expiresAt);
        const ttl = opts.sessionMinutes * 60;
        const id = issuer.mint(
          { sub: `local:${who.email}`, email: who.email, groups: who.groups },
          ttl,
          now(),
        );
        writeSession(c, cookie, id, ttl);
        return c.redirect("/", 303);
      });
      app.get("/auth/sign-in", (c) =>
        c.html(
          barePage(
            "Sign in",
            html`<p>Open a sign-in link: <code>npx postern console link</code> prints a fresh one (each works once, for 10 minutes).</p>`,
          ),
          401,
        ),
      );
      app.get("/auth/signed-out", (c) => c.html(barePage("Signed out", html`<p>You are signed out.</p>`)));
    },
  };
}

export const LOCAL_ADMIN = (email: string): LocalOperator => ({ email, groups: [GROUPS.admins] });
