import type { Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { ConsoleEnv } from "../env.ts";
import { html } from "../views/html.ts";
import { csrfField, page } from "../views/layout.ts";
import { knownZone } from "../views/time-view.ts";
import { ctxOf } from "./context.ts";

/** The operator's time zone: a cookie of theirs (a preference, not a credential), checked on every read. */
export const ZONE_COOKIE = "postern-tz";

export const zoneOf = (c: Context<ConsoleEnv>, fallback: string): string =>
  knownZone(getCookie(c, ZONE_COOKIE)) ?? fallback;

/** The settings page: the zone times are shown in (the console has no script to ask the browser for it). */
export function settingsRoutes(app: Hono<ConsoleEnv>, opts: { secureCookies: boolean }): void {
  app.get("/settings", (c) => {
    const ctx = ctxOf(c);
    const zones = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
    return c.html(
      page(
        "Settings",
        ctx,
        html`<form method="post" action="/settings/time-zone">${csrfField(ctx.csrf)}
<label>Show times in <select name="zone">${zones.map((z) => html`<option value="${z}"${z === ctx.zone ? html` selected` : ""}>${z}</option>`)}</select></label>
<button type="submit">Save</button></form>
<p class="note">Every time is shown in this zone with how long ago it was; hover a time for the UTC instant.</p>`,
      ),
    );
  });
  app.post("/settings/time-zone", async (c) => {
    const zone = knownZone(String((await c.req.parseBody()).zone ?? ""));
    if (!zone) return c.text("unknown time zone", 400);
    setCookie(c, ZONE_COOKIE, zone, {
      path: "/",
      sameSite: "Lax",
      httpOnly: true,
      secure: opts.secureCookies,
      maxAge: 365 * 86_400,
    });
    return c.redirect("/settings?done=saved", 303);
  });
}
