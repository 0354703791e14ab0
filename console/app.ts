import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { canRead } from "./auth/principal.ts";
import { csrfMatches, csrfToken, readSession, type SessionCookie } from "./auth/session.ts";
import type { TokenVerifier } from "./auth/verifier.ts";
import type { ConsoleDeps } from "./deps.ts";
import type { ConsoleEnv } from "./env.ts";
import { readRoutes } from "./routes/read.ts";
import { settingsRoutes, zoneOf } from "./routes/settings.ts";
import { writeRoutes } from "./routes/write.ts";
import { ownOriginOnly, sameOrigin, securityHeaders } from "./security.ts";
import { html } from "./views/html.ts";
import { barePage } from "./views/layout.ts";
import { CONSOLE_CSS } from "./views/style.ts";
import { withTimeView } from "./views/time-view.ts";

/** How people sign in: Cognito's hosted sign-in in AWS, a one-time link locally. */
export interface SignInProvider {
  readonly cookie: SessionCookie;
  readonly verifier: TokenVerifier;
  /** Origins besides our own that a form submission may end at (Cognito's logout endpoint). */
  readonly formActionOrigins: readonly string[];
  /** Registers the public `/auth/...` GET routes (sign-in, callback). */
  mount(app: Hono<ConsoleEnv>): void;
  /** Where a browser without a valid session is sent for a page. */
  readonly signInPath: string;
  /** Where the browser goes after its session cookie was cleared. */
  signedOutLocation(origin: string): string;
}

export interface ConsoleAppOptions {
  /**
   * The console's own origin (`scheme://host[:port]`): locally the URL the stack prints, in AWS the function URL.
   * Configuration, never taken from a request: a request whose target or Host names anything else gets 421, and
   * a state change must carry this Origin.
   */
  readonly origin: string;
  /**
   * The zone times are shown in until an operator picks one on /settings. Default: this process's zone (locally the
   * operator's machine; UTC on Lambda).
   */
  readonly defaultTimeZone?: string;
}

/**
 * The console: server-rendered HTML over the shared repositories. Every request but the stylesheet and the
 * sign-in routes needs a session whose ID token verifies (signature, issuer, client, expiry) on that very request;
 * every state change also needs our Origin and the session's CSRF token; writes need the `admins` group.
 */
export function createConsoleApp(
  deps: ConsoleDeps,
  signIn: SignInProvider,
  opts: ConsoleAppOptions,
): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const defaultZone = opts.defaultTimeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  app.use("*", securityHeaders(signIn.formActionOrigins));
  app.use("*", ownOriginOnly(opts.origin));
  app.get("/static/console.css", (c) => {
    c.header("Cache-Control", "public, max-age=3600");
    return c.body(CONSOLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
  });
  signIn.mount(app);
  // Forms are small (the largest is an agent's instructions, 20 000 characters): refuse anything far bigger before
  // it is read.
  app.use("*", bodyLimit({ maxSize: 256 * 1024, onError: (c) => c.text("request too large", 413) }));

  app.use("*", async (c, next) => {
    const session = readSession(c, signIn.cookie);
    const principal = session ? await signIn.verifier.verify(session) : null;
    // A signed-out session stays out, even where its cookie survived (a copy, a second tab's replay).
    if (!session || !principal || (await deps.sessions.isRevoked(session))) {
      if (c.req.method === "GET" || c.req.method === "HEAD") return c.redirect(signIn.signInPath, 302);
      return c.text("sign in first", 401);
    }
    if (!canRead(principal))
      return c.html(
        barePage(
          "No access yet",
          html`<p>You are signed in as ${principal.email}, but in neither the <code>viewers</code> nor the <code>admins</code> group. Ask an admin to add you.</p>`,
        ),
        403,
      );
    c.set("principal", principal);
    c.set("session", session);
    c.set("csrf", csrfToken(session));
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      if (!sameOrigin(c)) return c.text("cross-site request refused", 403);
      const body = await c.req.parseBody();
      if (!csrfMatches(session, body._csrf))
        return c.text("missing or wrong CSRF token: reload the page", 403);
    }
    await withTimeView({ zone: zoneOf(c, defaultZone), now: deps.now() }, next);
  });

  app.post("/auth/sign-out", async (c) => {
    await deps.sessions.revoke(c.get("session"));
    c.header(
      "Set-Cookie",
      `${signIn.cookie.name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${signIn.cookie.secure ? "; Secure" : ""}`,
    );
    return c.redirect(signIn.signedOutLocation(c.get("origin")), 303);
  });
  readRoutes(app, deps);
  writeRoutes(app, deps);
  settingsRoutes(app, { secureCookies: signIn.cookie.secure });
  app.notFound((c) => c.html(barePage("Not found", html`<p><a href="/">Back to the agents</a></p>`), 404));
  app.onError((err, c) => {
    deps.logger.error("console request failed", { path: c.req.path, error: String(err?.stack ?? err) });
    return c.html(barePage("Something went wrong", html`<p>The error is in the console's log.</p>`), 500);
  });
  return app;
}
