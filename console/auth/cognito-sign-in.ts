import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Jwks } from "aws-jwt-verify/jwk";
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { SignInProvider } from "../app.ts";
import type { ConsoleEnv } from "../env.ts";
import { html } from "../views/html.ts";
import { barePage } from "../views/layout.ts";
import { sessionCookie, writeSession } from "./session.ts";
import { type CognitoTarget, cognitoVerifier } from "./verifier.ts";

export interface CognitoSignInOptions extends CognitoTarget {
  /** The user pool's hosted sign-in domain, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly domain: string;
  /** Exchanging the code (tests pass a fake token endpoint). */
  readonly fetch?: typeof fetch;
  /** Keys to verify with instead of fetching the pool's JWKS (tests). */
  readonly jwks?: Jwks;
}

const FLOW_COOKIE = "__Host-postern-signin";

/**
 * Sign-in through Cognito's hosted pages (authorization code + PKCE, a public client: no secret in the function).
 * The `state` and the PKCE verifier live in a short-lived HttpOnly cookie; the ID token the code buys is verified
 * before it becomes the session, and again on every later request.
 */
export function cognitoSignIn(opts: CognitoSignInOptions): SignInProvider {
  const cookie = sessionCookie(true);
  const verifier = cognitoVerifier(opts, opts.jwks);
  const doFetch = opts.fetch ?? fetch;
  const domain = opts.domain.replace(/\/+$/, "");
  return {
    cookie,
    verifier,
    formActionOrigins: [new URL(domain).origin],
    signInPath: "/auth/sign-in",
    signedOutLocation: (origin) =>
      `${domain}/logout?${new URLSearchParams({ client_id: opts.clientId, logout_uri: `${origin}/auth/signed-out` })}`,
    mount(app: Hono<ConsoleEnv>) {
      app.get("/auth/sign-in", (c) => {
        const state = randomBytes(24).toString("base64url");
        const codeVerifier = randomBytes(48).toString("base64url");
        setCookie(c, FLOW_COOKIE, `${state}.${codeVerifier}`, {
          httpOnly: true,
          secure: true,
          sameSite: "Lax",
          path: "/",
          maxAge: 600,
        });
        const origin = c.get("origin");
        const q = new URLSearchParams({
          response_type: "code",
          client_id: opts.clientId,
          redirect_uri: `${origin}/auth/callback`,
          scope: "openid email",
          state,
          code_challenge: createHash("sha256").update(codeVerifier).digest("base64url"),
          code_challenge_method: "S256",
        });
        return c.redirect(`${domain}/oauth2/authorize?${q}`, 302);
      });
      app.get("/auth/callback", async (c) => {
        const flow = getCookie(c, FLOW_COOKIE) ?? "";
        deleteCookie(c, FLOW_COOKIE, { path: "/", secure: true });
        const [state = "", codeVerifier = ""] = flow.split(".");
        const given = c.req.query("state") ?? "";
        const code = c.req.query("code") ?? "";
        const same =
          state.length > 0 &&
          given.length === state.length &&
          timingSafeEqual(Buffer.from(given), Buffer.from(state));
        if (!same || !code || !codeVerifier) return failed(c);
        const origin = c.get("origin");
        const r = await doFetch(`${domain}/oauth2/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            client_id: opts.clientId,
            code,
            redirect_uri: `${origin}/auth/callback`,
            code_verifier: codeVerifier,
          }),
        });
        if (!r.ok) return failed(c);
        const tokens = (await r.json()) as { id_token?: unknown };
        const idToken = typeof tokens.id_token === "string" ? tokens.id_token : "";
        if (!(await verifier.verify(idToken))) return failed(c);
        const exp = JSON.parse(Buffer.from(idToken.split(".")[1] ?? "", "base64url").toString("utf8")).exp;
        writeSession(c, cookie, idToken, Number(exp) - Date.now() / 1000);
        return c.redirect("/", 303);
      });
      app.get("/auth/signed-out", (c) =>
        c.html(
          barePage("Signed out", html`<p>You are signed out. <a href="/auth/sign-in">Sign in again</a></p>`),
        ),
      );
    },
  };
}

function failed(c: Context<ConsoleEnv>) {
  return c.html(barePage("Sign-in failed", html`<p><a href="/auth/sign-in">Try again</a></p>`), 401);
}
