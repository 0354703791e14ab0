import type { Context, MiddlewareHandler } from "hono";
import { PosternError } from "../shared/errors.ts";
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
    // A route's own, stricter policy stands (a download's `sandbox`); every other response gets this one.
    if (!c.res.headers.get("Content-Security-Policy")) c.header("Content-Security-Policy", csp);
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
 * The console answers only at its own origin, which is configuration, never the request: locally the URL the stack
 * prints, in AWS the function URL (console/lambda.ts). A request whose target names another origin (absolute-form,
 * RFC 9112 §3.2.2, where the target's authority overrides Host) or whose Host is anything else gets 421
 * Misdirected Request (RFC 9110 §15.5.20). Without this, `POST http://evil.example/... HTTP/1.1` made the console's
 * origin `http://evil.example`, and that site's Origin then passed the same-origin check; a DNS-rebinding page
 * sends its own name as Host.
 */
export function ownOriginOnly(origin: string): MiddlewareHandler<ConsoleEnv> {
  const own = new URL(origin);
  if (own.origin !== origin)
    throw new PosternError(
      "misconfigured",
      `the console's origin must be scheme://host[:port], got ${origin}`,
    );
  return async (c, next) => {
    if (misdirected(own, c.req.url, c.req.header("host")))
      return c.text(`misdirected request: this console answers at ${own.origin}`, 421);
    c.set("origin", own.origin);
    await next();
  };
}

/** The request's target (as the server adapter resolved it) and its Host must both name `own`. */
export function misdirected(own: URL, target: string, host: string | undefined): boolean {
  let at: URL;
  try {
    at = new URL(target);
  } catch {
    return true;
  }
  // URL.host drops a scheme's default port, as a browser's Host does; compare both spellings the same way.
  return at.origin !== own.origin || (host ?? "").toLowerCase() !== own.host;
}

/**
 * A state change must come from one of our own pages: the browser's Origin must be ours (a cross-site form post
 * carries the other site's), and Fetch Metadata must not say cross-site. The CSRF token is checked after this.
 */
export function sameOrigin(c: Context<ConsoleEnv>): boolean {
  // c.get("origin") is the configured origin (ownOriginOnly), never one read from the request.
  const origin = c.req.header("origin");
  if (!origin || origin !== c.get("origin")) return false;
  const site = c.req.header("sec-fetch-site");
  return site === undefined || site === "same-origin";
}
