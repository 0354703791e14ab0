import { generateKeyPairSync, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { mintLinkToken } from "../../console/auth/link-token.ts";
import { signIdToken } from "../../console/auth/local-issuer.ts";
import { GROUPS } from "../../console/auth/principal.ts";
import {
  ADMIN,
  ConsoleClient,
  type ConsoleStack,
  HELPDESK,
  startConsoleStack,
  stopAfterAll,
  VIEWER,
} from "./harness.ts";

let s: ConsoleStack;
beforeAll(async () => {
  s = await startConsoleStack();
}, 60_000);
stopAfterAll(() => s);

const PAGES = [
  "/",
  `/agents/${encodeURIComponent(HELPDESK)}`,
  "/refusals",
  "/plans",
  "/admin",
  "/audit",
  "/runs/x",
  "/attachments/a/b/c",
];
const WRITES = [
  "/admin/agents/add",
  "/admin/accessRules/add",
  "/admin/agents/delete",
  "/plans/x/apply",
  "/auth/sign-out",
];

/** A client whose session cookie is `token` (as a browser holding a stolen, forged or stale cookie would be). */
function withToken(token: string): ConsoleClient {
  const c = new ConsoleClient(s.console.url);
  c.cookie = `postern-session=${token}`;
  return c;
}

const claims = (email: string, groups: string[] = [GROUPS.admins]) => ({ sub: randomUUID(), email, groups });

describe("an unsigned request gets nothing", () => {
  it("every page redirects to sign-in, with no data in the response", async () => {
    const c = new ConsoleClient(s.console.url);
    for (const path of PAGES) {
      const r = await c.get(path);
      expect(r.status, path).toBe(302);
      expect(r.headers.get("location"), path).toBe("/auth/sign-in");
      expect(await r.text(), path).toBe("");
    }
  });

  it("every state change is refused with 401", async () => {
    const c = new ConsoleClient(s.console.url);
    for (const path of WRITES) expect((await c.post(path, { _csrf: "x" })).status, path).toBe(401);
  });
});

describe("tokens are verified on every request", () => {
  it("a token signed by another key (forged) is refused", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const kid = s.console.signIn.issuer.jwks.keys[0]?.kid ?? "";
    const forged = signIdToken(
      privateKey,
      kid,
      s.console.signIn.issuer.target,
      claims(ADMIN),
      600,
      new Date(),
    );
    expect((await withToken(forged).get("/")).status).toBe(302);
  });

  it("an expired token is refused", async () => {
    const old = new Date(Date.now() - 2 * 3600_000);
    const expired = s.console.signIn.issuer.mint(claims(ADMIN), 600, old);
    expect((await withToken(expired).get("/")).status).toBe(302);
  });

  it("a token for another client, an unsigned (alg none) token, and garbage are refused", async () => {
    const issuer = s.console.signIn.issuer;
    const otherClient = issuer.mint(claims(ADMIN), 600, new Date(), "someone-else");
    const good = issuer.mint(claims(ADMIN), 600);
    const [, payload] = good.split(".");
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
    for (const t of [otherClient, none, "garbage", `${good}x`])
      expect((await withToken(t).get("/")).status, t).toBe(302);
    expect((await withToken(good).get("/")).status).toBe(200);
  });

  it("a valid token without a console group, or without a verified e-mail, gets no data", async () => {
    const issuer = s.console.signIn.issuer;
    const noGroup = await withToken(issuer.mint(claims("nobody@operators.example", []), 600)).get("/");
    expect(noGroup.status).toBe(403);
    expect(await noGroup.text()).not.toContain(HELPDESK);
    const unverified = issuer.mint({ ...claims(ADMIN), emailVerified: false }, 600);
    expect((await withToken(unverified).get("/")).status).toBe(302);
  });
});

describe("sign-in links and sign-out", () => {
  const linkWith = (key: Uint8Array, expiresAt = Date.now() + 600_000) =>
    `${s.console.url}/auth/local?token=${mintLinkToken(key, { email: ADMIN, groups: [GROUPS.admins] }, expiresAt)}`;

  it("a link minted with the stack's key (as `postern console link` does) signs in once", async () => {
    const link = linkWith(s.console.signIn.linkKey);
    const first = new ConsoleClient(s.console.url);
    expect((await first.signIn(link)).status).toBe(303);
    expect((await first.get("/")).status).toBe(200);
    const again = new ConsoleClient(s.console.url);
    expect((await again.signIn(link)).status).toBe(401);
    expect(again.cookie).toBe("");
  });

  it("a link signed with another key, an expired link and a tampered link sign nobody in", async () => {
    const foreign = linkWith(new Uint8Array(32).fill(7));
    const expired = linkWith(s.console.signIn.linkKey, Date.now() - 1000);
    const good = new URL(linkWith(s.console.signIn.linkKey));
    const [body, mac] = (good.searchParams.get("token") ?? "").split(".");
    const claims = JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8"));
    const raised = Buffer.from(JSON.stringify({ ...claims, email: "mallory@operators.example" })).toString(
      "base64url",
    );
    const tampered = `${s.console.url}/auth/local?token=${raised}.${mac}`;
    for (const link of [foreign, expired, tampered]) {
      const c = new ConsoleClient(s.console.url);
      expect((await c.signIn(link)).status, link).toBe(401);
      expect(c.cookie, link).toBe("");
    }
  });

  it("sign-out revokes the session on the server: a copy of the cookie is signed out too", async () => {
    const c = new ConsoleClient(s.console.url);
    await c.signIn(s.console.link());
    const copy = new ConsoleClient(s.console.url);
    copy.cookie = c.cookie;
    expect((await copy.get("/")).status).toBe(200);
    const out = await c.post("/auth/sign-out", { _csrf: await c.csrf("/") });
    expect(out.status).toBe(303);
    const r = await copy.get("/");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/auth/sign-in");
    expect((await copy.post("/admin/accessRules/add", { _csrf: "x" })).status).toBe(401);
  });
});

describe("a viewer reads but cannot write", () => {
  it("is refused every admin change and attachment download, with a valid CSRF token", async () => {
    const viewer = new ConsoleClient(s.console.url);
    await viewer.signIn(s.console.link({ email: VIEWER, groups: [GROUPS.viewers] }));
    expect((await viewer.get("/")).status).toBe(200);
    const csrf = await viewer.csrf("/");
    const before = await s.stores.admin.exportDocument();
    const attempts: [string, Record<string, string>][] = [
      [
        "/admin/agents/add",
        { address: "evil@agents.example.net", name: "Evil", model: "reply", enabled: "on" },
      ],
      ["/admin/accessRules/add", { agent: HELPDESK, pattern: "*", effect: "allow" }],
      ["/admin/agents/delete", { address: HELPDESK }],
      ["/admin/toolkits/edit", { id: "refunds", tools: "send_email" }],
      ["/admin/approvers/add", { toolkit: "refunds", address: VIEWER }],
    ];
    for (const [path, form] of attempts)
      expect((await viewer.post(path, { ...form, _csrf: csrf })).status, path).toBe(403);
    expect(await s.stores.admin.exportDocument()).toEqual(before);
    expect((await viewer.get("/attachments/a/b/c")).status).toBe(403);
    expect(await (await viewer.get("/admin")).text()).toContain("viewer");
  });
});

describe("cross-site requests", () => {
  it("an admin's change needs our Origin and the session's CSRF token", async () => {
    const admin = new ConsoleClient(s.console.url);
    await admin.signIn(s.console.link());
    const csrf = await admin.csrf();
    const form = { agent: HELPDESK, pattern: "x@csrf.example", effect: "deny" };
    expect((await admin.post("/admin/accessRules/add", form)).status).toBe(403);
    expect((await admin.post("/admin/accessRules/add", { ...form, _csrf: "wrong" })).status).toBe(403);
    expect(
      (
        await admin.post(
          "/admin/accessRules/add",
          { ...form, _csrf: csrf },
          { origin: "https://evil.example" },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await admin.post(
          "/admin/accessRules/add",
          { ...form, _csrf: csrf },
          { "sec-fetch-site": "cross-site" },
        )
      ).status,
    ).toBe(403);
    expect(await s.stores.admin.listAccessRules(HELPDESK)).toEqual([]);
    const ok = await admin.post("/admin/accessRules/add", { ...form, _csrf: csrf });
    expect(ok.status).toBe(303);
    expect(await s.stores.admin.listAccessRules(HELPDESK)).toEqual([
      { agent: HELPDESK, effect: "deny", pattern: "x@csrf.example" },
    ]);
  });

  it("answers only to its loopback host names (DNS rebinding gets nothing)", async () => {
    const { request } = await import("node:http");
    const url = new URL(s.console.url);
    const status = await new Promise<number>((res, rej) => {
      const req = request(
        { host: url.hostname, port: url.port, path: "/", headers: { host: "evil.example" } },
        (r) => {
          r.resume();
          res(r.statusCode ?? 0);
        },
      );
      req.on("error", rej);
      req.end();
    });
    expect(status).toBe(421);
  });

  it("every page carries a CSP without script, and no-frame, no-sniff headers", async () => {
    const r = await new ConsoleClient(s.console.url).get("/auth/sign-in");
    const csp = r.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("cache-control")).toBe("no-store");
  });
});
