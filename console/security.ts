import type { Context, MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "./env.ts";

/**
 * Headers on every response. The CSP allows no script at all (the console needs none: every page works as plain
 * HTML forms), styles only from our own stylesheet, no frames, no plugins, and forms only to ourselves (plus the
 * sign-in provider's logout in AWS). Sender text can therefore never run, whatever escaping might miss.
 */
export function securityHeaders(formActionOrigins: readonly string[]): MiddlewareHandler<ConsoleEnv> {
  const csp = [
    "default-src 'none'",
    "script-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action 'self'${formActionOrigins.map((o) => ` ${o}`).join("")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  return async (c, next) => {
    await next();
    c.header("Content-Security-Policy", csp);
    c.header("X-Content-Type-Options", "nosniff");
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on form posts, and the
    // same-origin check needs the real Origin. Other sites still get no Referer (no ids, no tokens in URLs).
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
    if (!c.res.headers.get("Cache-Control")) c.header("Cache-Control", "no-store");
  };
}

/**
 * Locally: answer only to the loopback names we listen on. A DNS-rebinding page that points its own name at
 * 127.0.0.1 sends its own Host header, and gets nothing.
 */
export function hostAllowList(hosts: readonly string[] | undefined): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (hosts && !hosts.includes((c.req.header("host") ?? "").toLowerCase()))
      return c.text("misdirected request", 421);
    await next();
  };
}

/**
 * A state change must come from one of our own pages: the browser's Origin must be ours (a cross-site form post
 * carries the other site's), and Fetch Metadata must not say cross-site. The CSRF token is checked after this.
 */
export function sameOrigin(c: Context<ConsoleEnv>): boolean {
  const origin = c.req.header("origin");
  if (!origin || origin !== c.get("origin")) return false;
  const site = c.req.header("sec-fetch-site");
  return site === undefined || site === "same-origin";
}
