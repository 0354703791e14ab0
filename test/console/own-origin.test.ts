import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { ConsoleClient, type ConsoleStack, HELPDESK, startConsoleStack, stopAfterAll } from "./harness.ts";

/**
 * The console took its own origin from the request target, so `POST http://evil.example/admin/...
 * HTTP/1.1` (absolute-form, RFC 9112 §3.2.2) with `Host: 127.0.0.1:<port>` made its origin `http://evil.example`,
 * and `Origin: http://evil.example` then passed the same-origin check. Its origin is now configuration (the URL
 * the stack prints); a target or Host naming anything else is 421 (RFC 9110 §15.5.20). These requests are
 * written byte for byte on a socket, exactly as an attacker would send them: no HTTP client rewrites the target.
 */
let s: ConsoleStack;
let port: number;
let own: string;
beforeAll(async () => {
  s = await startConsoleStack();
  own = s.console.url;
  port = Number(new URL(own).port);
}, 60_000);
stopAfterAll(() => s);

interface Raw {
  readonly method?: "GET" | "POST";
  readonly target: string;
  readonly host: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

async function raw(r: Raw): Promise<{ status: number; text: string }> {
  const body = r.body ?? "";
  const head = [
    `${r.method ?? "GET"} ${r.target} HTTP/1.1`,
    `Host: ${r.host}`,
    "Connection: close",
    ...Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ...(r.method === "POST"
      ? ["Content-Type: application/x-www-form-urlencoded", `Content-Length: ${Buffer.byteLength(body)}`]
      : []),
  ];
  const socket = connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (d) => chunks.push(d));
  await new Promise<void>((res, rej) => {
    socket.once("error", rej);
    socket.once("close", () => res());
    socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
  });
  const text = Buffer.concat(chunks).toString("utf8");
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text };
}

/** An admin's session cookie and the CSRF token of its forms. */
async function admin(): Promise<{ cookie: string; csrf: string }> {
  const c = new ConsoleClient(own);
  await c.signIn(s.console.link());
  return { cookie: c.cookie, csrf: await c.csrf() };
}

const ruleForm = (csrf: string, pattern: string) =>
  new URLSearchParams({ agent: HELPDESK, pattern, effect: "deny", _csrf: csrf }).toString();

describe("the console answers only at its configured origin", () => {
  const host = () => `127.0.0.1:${port}`;

  it("an absolute-form target naming another host is 421, whatever the Host", async () => {
    for (const target of [
      "http://evil.example/",
      `http://evil.example:${port}/`,
      `https://127.0.0.1:${port}/`,
    ])
      expect((await raw({ target, host: host() })).status, target).toBe(421);
  });

  it("a Host other than the configured one is 421 (DNS rebinding, a second name, another port)", async () => {
    for (const h of [
      "evil.example",
      `evil.example:${port}`,
      `localhost:${port}`,
      `127.0.0.1:${port + 1}`,
      "",
    ])
      expect((await raw({ target: "/", host: h })).status, h).toBe(421);
    // Our own origin as the target does not excuse another Host.
    expect((await raw({ target: `${own}/`, host: "evil.example" })).status).toBe(421);
  });

  it("its own origin, in origin-form or absolute-form, is served", async () => {
    const { cookie } = await admin();
    const signedIn = { Cookie: cookie };
    const plain = await raw({ target: "/", host: host(), headers: signedIn });
    expect(plain.status).toBe(200);
    expect(plain.text).toContain(HELPDESK);
    expect((await raw({ target: `${own}/`, host: host(), headers: signedIn })).status).toBe(200);
    expect((await raw({ target: "/", host: host() })).status).toBe(302);
  });

  it("the absolute-form attack on a state change is 421 and changes nothing", async () => {
    const { cookie, csrf } = await admin();
    const attack = await raw({
      method: "POST",
      target: "http://evil.example/admin/accessRules/add",
      host: host(),
      headers: { Cookie: cookie, Origin: "http://evil.example" },
      body: ruleForm(csrf, "x@absolute.example"),
    });
    expect(attack.status).toBe(421);
    expect(await s.stores.admin.listAccessRules(HELPDESK)).toEqual([]);
  });

  it("a cross-origin POST at our own target and Host is still refused; our own Origin is applied", async () => {
    const { cookie, csrf } = await admin();
    const post = (origin: string, pattern: string) =>
      raw({
        method: "POST",
        target: "/admin/accessRules/add",
        host: host(),
        headers: { Cookie: cookie, Origin: origin },
        body: ruleForm(csrf, pattern),
      });
    expect((await post("http://evil.example", "x@cross.example")).status).toBe(403);
    expect((await post(`http://localhost:${port}`, "x@cross.example")).status).toBe(403);
    expect(await s.stores.admin.listAccessRules(HELPDESK)).toEqual([]);
    expect((await post(own, "x@same.example")).status).toBe(303);
    expect(await s.stores.admin.listAccessRules(HELPDESK)).toEqual([
      { agent: HELPDESK, effect: "deny", pattern: "x@same.example" },
    ]);
  });
});
