import type { Principal } from "../auth/principal.ts";
import { type Html, html } from "./html.ts";

export interface PageContext {
  readonly principal: Principal;
  readonly csrf: string;
  /** A one-line message after a redirect (engine-written, from a fixed list). */
  readonly flash?: string | undefined;
  /** The zone this page's times are in (the header says so, and links to where it is changed). */
  readonly zone?: string;
}

/** The page shell: no inline script or style anywhere (the CSP forbids both); one stylesheet from 'self'. */
export function page(title: string, ctx: PageContext, body: Html): Html {
  const role = ctx.principal.groups.includes("admins") ? "admin" : "viewer";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">

<title>${title} · Postern console</title>
<link rel="stylesheet" href="/static/console.css">
</head>
<body>
<header>
  <strong>Postern</strong>
  <nav>
    <a href="/">Home</a>
    <a href="/refusals">Refused mail</a>
    <a href="/failures">Failures</a>
    <a href="/plans">Pending plans</a>
    <a href="/webhooks">Webhooks</a>
    <a href="/admin">Admin</a>
    <a href="/audit">Audit log</a>
  </nav>
  <span class="who">${ctx.principal.email} (${role}) · <a href="/settings" title="change the time zone">${ctx.zone ?? "UTC"}</a>
    <form class="inline" method="post" action="/auth/sign-out">${csrfField(ctx.csrf)}<button type="submit">Sign out</button></form>
  </span>
</header>
<main>
${ctx.flash ? html`<p class="flash" role="status">${ctx.flash}</p>` : ""}
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}

export const csrfField = (csrf: string): Html => html`<input type="hidden" name="_csrf" value="${csrf}">`;

/** A bare page for the signed-out states (no navigation, no data). */
export function barePage(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · Postern console</title>
<link rel="stylesheet" href="/static/console.css"></head>
<body><main><h1>${title}</h1>${body}</main></body></html>`;
}

export const statusBadge = (status: string): Html => html`<span class="status s-${status}">${status}</span>`;
