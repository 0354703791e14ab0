import type { Hono } from "hono";
import { PREFIXES } from "../../shared/config/index.ts";
import { canWrite } from "../auth/principal.ts";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { failuresView } from "../views/failures.ts";
import { page } from "../views/layout.ts";
import { refusalsView } from "../views/refusals.ts";
import { ctxOf } from "./context.ts";

/** An SES message id (and the local intake's): letters, digits, `-`, `_`, `.`; never a path. */
const SES_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Refused and dropped mail (G4: verdict records only), and attachment downloads (admins only). */
export function mailPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.get("/refusals", async (c) => {
    const raw = c.req.query("reason") ?? "";
    const reason = /^[a-z0-9-]{1,64}$/.test(raw) ? raw : undefined;
    const p = await deps.index.refusals({
      limit: 50,
      cursor: c.req.query("cursor"),
      reason,
      today: deps.now(),
    });
    return c.html(
      page(
        "Refused and dropped mail",
        ctxOf(c),
        refusalsView(p, reason, { canDownload: canWrite(c.get("principal")) }),
      ),
    );
  });

  // G19: every failure of the last week, one Query per day (the failure feed in `state`).
  app.get("/failures", async (c) => {
    const days = 7;
    const items = await deps.failures.listRecent({ now: deps.now(), days, limit: 100 });
    return c.html(page("Failures", ctxOf(c), failuresView(items, days)));
  });

  // Raw mail as it arrived (accepted or refused): admins only, and only as a download of opaque bytes. It is the
  // sender's own bytes, HTML and all: served as application/octet-stream with Content-Disposition: attachment and
  // a sandboxing CSP, so no browser renders it in our origin (G4: refused mail's text is never shown here, and a
  // hostile mail cannot script the console).
  app.get("/raw/:id", async (c) => {
    if (!canWrite(c.get("principal"))) return c.text("raw mail is for admins", 403);
    const id = c.req.param("id");
    if (!SES_ID.test(id)) return c.notFound();
    const bytes = await deps.blobs.get(`${PREFIXES.inbound}${id}`);
    if (!bytes) return c.notFound();
    return c.body(new Uint8Array(bytes).buffer as ArrayBuffer, 200, {
      "Content-Type": "application/octet-stream",
      "Content-Disposition": `attachment; filename="${id}.eml"`,
      "Content-Security-Policy": "sandbox; default-src 'none'",
    });
  });

  // Attachments: admins only, always as a download of opaque bytes, never rendered in our origin.
  app.get("/attachments/:agent/:messageId/:attId", async (c) => {
    if (!canWrite(c.get("principal"))) return c.text("attachments are for admins", 403);
    const msg = await deps.messages.get(c.req.param("agent"), c.req.param("messageId"));
    const att = msg?.attachments.find((a) => a.id === c.req.param("attId"));
    if (!msg || !att) return c.notFound();
    const bytes = await deps.blobs.get(att.key);
    if (!bytes) return c.notFound();
    const name = `attachment-${att.id}.bin`;
    return c.body(new Uint8Array(bytes).buffer as ArrayBuffer, 200, {
      "Content-Type": "application/octet-stream",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Content-Security-Policy": "sandbox; default-src 'none'",
    });
  });
}
