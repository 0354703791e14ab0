import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import type { SignInProvider } from "../app.ts";
import type { ConsoleEnv } from "../env.ts";
import { html } from "../views/html.ts";
import { barePage } from "../views/layout.ts";
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
}

/**
 * Local sign-in: `npm start` prints a link holding a random one-time token. Opening it (once, soon) exchanges the
 * token for a session: an ID token the local issuer signs, verified on every request by the Cognito verifier.
 * Without the link there is no way in; the server listens on 127.0.0.1 only.
 */
export function localSignIn(opts: {
  operator: LocalOperator;
  sessionMinutes: number;
  now?: () => Date;
}): LocalSignIn {
  const issuer = createLocalIssuer();
  const now = opts.now ?? (() => new Date());
  const links = new Map<string, { who: LocalOperator; expiresAt: number }>();
  const cookie = sessionCookie(false);
  return {
    issuer,
    cookie,
    verifier: cognitoVerifier(issuer.target, issuer.jwks),
    formActionOrigins: [],
    signInPath: "/auth/sign-in",
    signedOutLocation: () => "/auth/signed-out",
    mintLink(origin, who = opts.operator, ttlSeconds = 600) {
      const token = randomBytes(32).toString("base64url");
      links.set(token, { who, expiresAt: now().getTime() + ttlSeconds * 1000 });
      return `${origin}/auth/local?token=${token}`;
    },
    mount(app: Hono<ConsoleEnv>) {
      app.get("/auth/local", (c) => {
        const token = c.req.query("token") ?? "";
        const link = links.get(token);
        links.delete(token); // once, whether or not it was still valid
        if (!link || link.expiresAt < now().getTime())
          return c.html(
            barePage(
              "Sign-in link used or expired",
              html`<p>Each link works once, for 10 minutes. Restart <code>npm start</code> for a new one.</p>`,
            ),
            401,
          );
        const ttl = opts.sessionMinutes * 60;
        const id = issuer.mint(
          { sub: `local:${link.who.email}`, email: link.who.email, groups: link.who.groups },
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
            html`<p>Open the one-time sign-in link that <code>npm start</code> printed in its terminal.</p>`,
          ),
          401,
        ),
      );
      app.get("/auth/signed-out", (c) => c.html(barePage("Signed out", html`<p>You are signed out.</p>`)));
    },
  };
}

export const LOCAL_ADMIN = (email: string): LocalOperator => ({ email, groups: [GROUPS.admins] });
