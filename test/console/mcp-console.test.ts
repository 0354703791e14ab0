import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GROUPS } from "../../console/auth/principal.ts";
import { definitionHash } from "../../shared/mcp/index.ts";
import { envSecretSource } from "../../shared/secrets/index.ts";
import { AuditRepo } from "../../shared/store/audit-repo.ts";
import {
  type HostileServer,
  POISONED_DESCRIPTION,
  RUG_PULLED_DESCRIPTION,
  startHostileServer,
} from "../helpers/mcp-servers/hostile.ts";
import { ConsoleClient, type ConsoleStack, startConsoleStack, stopAfterAll, VIEWER } from "./harness.ts";

// MCP servers registered and reviewed from the console against the hostile server of docs/mcp.md's threat model:
// its poisoned description shown escaped in an untrusted box, nothing offered until chosen, the chosen tools pinned
// by hash, a rug pull shown as CHANGED and withheld, and a definition that changes under the review page refused.

let s: ConsoleStack;
let hostile: HostileServer;
let admin: ConsoleClient;
let csrf = "";

beforeAll(async () => {
  hostile = await startHostileServer();
  s = await startConsoleStack({ mcpSecrets: envSecretSource({ ORDERS_TOKEN: "t0ken-value" }) });
  admin = new ConsoleClient(s.console.url);
  await admin.signIn(s.console.link());
  csrf = await admin.csrf("/mcp/add");
}, 60_000);
stopAfterAll(() => s);
afterAll(async () => hostile?.close());
beforeEach(async () => {
  hostile.state.rugPull = false;
  for (const m of await s.stores.admin.listMcpServers()) await s.stores.admin.deleteMcpServer(m.id);
});

const htmlDecoded = (v: string) =>
  v
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");

/** The review form's hidden fields and each tool's pre-selected class, as a browser would submit them unchanged. */
function reviewForm(page: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form[m[1] as string] = htmlDecoded(m[2] as string);
  for (const m of page.matchAll(/<select name="(tool\.\d+\.class)">(.*?)<\/select>/gs))
    form[m[1] as string] = /<option value="([a-z]+)" selected>/.exec(m[2] as string)?.[1] ?? "";
  return form;
}

/** The form field prefix (`tool.3`) of a tool on a review page. */
function slot(form: Record<string, string>, name: string): string {
  const key = Object.keys(form).find((k) => k.endsWith(".name") && form[k] === name);
  if (!key) throw new Error(`no ${name} on the page`);
  return key.slice(0, -".name".length);
}

const addForm = (extra: Record<string, string> = {}) => ({
  _csrf: csrf,
  id: "orders",
  url: hostile.url,
  authKind: "none",
  recordContent: "on",
  ...extra,
});

async function addAndReview(extra: Record<string, string> = {}): Promise<string> {
  const r = await admin.post("/mcp/add", addForm(extra));
  expect(r.status).toBe(200);
  return r.text();
}

async function save(form: Record<string, string>): Promise<Response> {
  return admin.post("/mcp/save", form);
}

describe("adding an MCP server from the console", () => {
  it("lists the hostile server's tools: poisoned words escaped in untrusted boxes, nothing offered, nothing stored", async () => {
    const page = await addAndReview();
    expect(page).not.toContain("<IMPORTANT>");
    expect(page).toContain("&lt;IMPORTANT&gt;Before calling this tool");
    expect(page).toMatch(
      /class="untrusted-box by-server"[\s\S]*the description, written by the MCP server orders/,
    );
    expect(page).toContain("the annotations, written by the MCP server orders");
    expect(page).toContain("not reviewed (never offered)");
    const form = reviewForm(page);
    const classes = Object.entries(form).filter(([k]) => k.endsWith(".class"));
    expect(classes.length).toBe(5);
    expect(classes.every(([, v]) => v === "none")).toBe(true);
    expect(await s.stores.admin.listMcpServers()).toEqual([]);
    expect(hostile.calls).toEqual([]);
    // Saving the page unchanged registers the server with nothing offered.
    expect((await save(form)).status).toBe(303);
    expect((await s.stores.admin.listMcpServers())[0]?.tools).toEqual([]);
  });

  it("saving pins exactly the chosen tools, by the hash of the definition the page showed, and is audited", async () => {
    const form = reviewForm(await addAndReview());
    const status = slot(form, "order_status");
    const cancel = slot(form, "cancelOrder");
    form[`${status}.class`] = "read";
    form[`${cancel}.class`] = "act";
    form[`${cancel}.exposedAs`] = "cancel_order";
    form[`${cancel}.principal`] = "orderId";
    expect((await save(form)).status).toBe(303);
    const [server] = await s.stores.admin.listMcpServers();
    expect(server?.tools.map((t) => [t.name, t.class, t.exposedAs, t.principalArgument])).toEqual([
      ["order_status", "read", "orders_order_status", undefined],
      ["cancelOrder", "act", "cancel_order", "orderId"],
    ]);
    for (const t of server?.tools ?? [])
      expect(t.hash).toBe(
        definitionHash({ name: t.name, description: t.description, inputSchema: t.inputSchema }),
      );
    const audit = await new AuditRepo({
      dynamo: s.stack.clients.dynamo,
      tables: s.stack.resources.tables,
    }).list({
      limit: 50,
    });
    expect(audit.items.some((e) => e.table === "mcpServers" && e.outcome === "applied")).toBe(true);
  });

  it("a rug pull shows as CHANGED and withheld on Review; saving the page as shown leaves it unpinned", async () => {
    const form = reviewForm(await addAndReview());
    form[`${slot(form, "lookup_order")}.class`] = "read";
    form[`${slot(form, "order_status")}.class`] = "read";
    expect((await save(form)).status).toBe(303);
    hostile.state.rugPull = true;
    const review = await (await admin.get("/mcp/orders/review")).text();
    expect(review).toContain("CHANGED since review (withheld)");
    expect(review).toContain("the description as reviewed, written by the MCP server orders");
    expect(review).toContain(RUG_PULLED_DESCRIPTION);
    const again = reviewForm(review);
    expect(again[`${slot(again, "lookup_order")}.class`]).toBe("none");
    expect(again[`${slot(again, "order_status")}.class`]).toBe("read");
    expect((await save(again)).status).toBe(303);
    const [server] = await s.stores.admin.listMcpServers();
    expect(server?.tools.map((t) => t.name)).toEqual(["order_status"]);
  });

  it("a definition that changes between the review page and the save is refused, not pinned unseen", async () => {
    const form = reviewForm(await addAndReview());
    form[`${slot(form, "lookup_order")}.class`] = "read";
    hostile.state.rugPull = true;
    const r = await save(form);
    expect(r.status).toBe(400);
    expect(await r.text()).toContain("changed (or it is gone) since this page listed it");
    expect(await s.stores.admin.listMcpServers()).toEqual([]);
    expect(POISONED_DESCRIPTION).not.toBe(RUG_PULLED_DESCRIPTION);
  });

  it("takes https URLs only (plain http only to loopback, locally), on add and on a tampered save", async () => {
    const seen = hostile.paths.length;
    const r = await admin.post("/mcp/add", addForm({ url: "http://mcp.invalid/mcp" }));
    expect(r.status).toBe(400);
    expect(await r.text()).toContain("must be https");
    const form = reviewForm(await addAndReview());
    const server = JSON.parse(form.server ?? "{}") as Record<string, unknown>;
    const tampered = await save({
      ...form,
      server: JSON.stringify({ ...server, url: "http://mcp.invalid/mcp" }),
    });
    expect(tampered.status).toBe(400);
    expect(await tampered.text()).toContain("must be https");
    expect(await s.stores.admin.listMcpServers()).toEqual([]);
    expect(hostile.paths.length).toBeGreaterThan(seen);
  });

  it("stores a secret's reference, never a value; a reference that names no secret is refused at listing", async () => {
    const page = await addAndReview({ authKind: "bearer", bearerSecret: "ORDERS_TOKEN" });
    expect(page).not.toContain("t0ken-value");
    expect((await save(reviewForm(page))).status).toBe(303);
    const [server] = await s.stores.admin.listMcpServers();
    expect(server?.auth).toEqual({ kind: "bearer", secret: "ORDERS_TOKEN" });
    expect(JSON.stringify(await s.stores.admin.exportDocument())).not.toContain("t0ken-value");
    const missing = await admin.post(
      "/mcp/add",
      addForm({ id: "other", authKind: "bearer", bearerSecret: "NONE_TOKEN" }),
    );
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("secret NONE_TOKEN is not set");
  });

  it("remove needs the confirmation page's confirm=yes", async () => {
    expect((await save(reviewForm(await addAndReview()))).status).toBe(303);
    const bare = await admin.post("/mcp/orders/delete", { _csrf: csrf });
    expect(bare.headers.get("location")).toBe("/admin?done=not-removed#mcpServers");
    expect(await s.stores.admin.listMcpServers()).toHaveLength(1);
    expect(await (await admin.get("/mcp/orders/remove")).text()).toContain('name="confirm" value="yes"');
    expect((await admin.post("/mcp/orders/delete", { _csrf: csrf, confirm: "yes" })).status).toBe(303);
    expect(await s.stores.admin.listMcpServers()).toEqual([]);
  });
});

describe("who may change MCP servers", () => {
  it("a viewer gets 403 on every MCP write and no form; nothing is listed or stored", async () => {
    const viewer = new ConsoleClient(s.console.url);
    await viewer.signIn(s.console.link({ email: VIEWER, groups: [GROUPS.viewers] }));
    const vcsrf = await viewer.csrf("/");
    const seen = hostile.paths.length;
    for (const [path, form] of [
      ["/mcp/add", addForm()],
      ["/mcp/save", { mode: "review", id: "orders" }],
      ["/mcp/orders/delete", { confirm: "yes" }],
    ] as const)
      expect((await viewer.post(path, { ...form, _csrf: vcsrf })).status, path).toBe(403);
    expect((await viewer.get("/mcp/add")).status).toBe(404);
    expect(hostile.paths.length).toBe(seen);
    expect(await s.stores.admin.listMcpServers()).toEqual([]);
  });

  it("an admin's write needs our Origin and the session's CSRF token", async () => {
    const seen = hostile.paths.length;
    expect((await admin.post("/mcp/add", { ...addForm(), _csrf: "wrong" })).status).toBe(403);
    expect((await admin.post("/mcp/add", addForm(), { origin: "https://evil.example" })).status).toBe(403);
    expect(hostile.paths.length).toBe(seen);
  });
});
