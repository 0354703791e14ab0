import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { safeFetch } from "../../../shared/net/safe-fetch.ts";
import { fakeResolver, type LocalServer, startServer } from "./local-server.ts";

const servers: LocalServer[] = [];
const serve = async (...args: Parameters<typeof startServer>) => {
  const s = await startServer(...args);
  servers.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const page = (body = "<html><head><title>Hi</title></head><body><p>hello</p></body></html>") =>
  startServerHtml(body);
const startServerHtml = (body: string) =>
  serve((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(body);
  });
/** Only the loopback test server's address: the policy a test swaps in to reach it. */
const onlyLoopback1 = (a: string) => a === "127.0.0.1";

describe("safeFetch: the default policy", () => {
  it("refuses loopback, even though a server is listening there, and never connects", async () => {
    const s = await page();
    const r = await safeFetch(`${s.origin}/`);
    expect(r).toMatchObject({ ok: false, reason: "address-not-public" });
    expect(s.requests).toHaveLength(0);
  });

  it.each([
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.0.1/",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://[::1]/",
    "http://[fc00::1]/",
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:a00:1::1]/",
    "http://[::127.0.0.1]/",
  ])("refuses the literal %s without DNS", async (url) => {
    const dns = fakeResolver({});
    const r = await safeFetch(url, { resolve: dns.resolve });
    expect(r).toMatchObject({ ok: false, reason: "address-not-public" });
    expect(dns.calls).toEqual([]);
  });

  it.each([
    "http://2130706433",
    "http://0x7f.1",
    "http://0x7f000001",
    "http://017700000001",
    "http://127.1",
    "http://0177.0.0.1",
  ])("reads %s as 127.0.0.1 (WHATWG URL) and refuses it", async (base) => {
    const s = await page();
    const r = await safeFetch(`${base}:${s.port}/`);
    expect(r).toMatchObject({ ok: false, reason: "address-not-public" });
    expect(s.requests).toHaveLength(0);
  });

  it("refuses a public-looking name whose answers include a private address", async () => {
    const dns = fakeResolver({
      "www.example.com": ["93.184.215.14", "10.0.0.7"],
      "metadata.example.com": ["169.254.169.254"],
      "v6.example.com": ["2606:4700::1111", "fd00::1"],
      "mapped.example.com": ["::ffff:127.0.0.1"],
    });
    for (const host of ["www.example.com", "metadata.example.com", "v6.example.com", "mapped.example.com"]) {
      expect(await safeFetch(`http://${host}/`, { resolve: dns.resolve })).toMatchObject({
        ok: false,
        reason: "address-not-public",
      });
    }
  });

  it.each([
    ["file:///etc/passwd"],
    ["ftp://ftp.example.com/file"],
    ["gopher://example.com:70/1"],
    ["data:text/html,<p>x</p>"],
    ["javascript:alert(1)"],
    ["ws://example.com/"],
  ])("refuses the scheme of %s", async (url) => {
    expect(await safeFetch(url)).toMatchObject({ ok: false, reason: "scheme-not-allowed" });
  });

  it("refuses URLs with credentials and garbage", async () => {
    expect(await safeFetch("http://user:pw@example.com/")).toMatchObject({ reason: "url-credentials" });
    expect(await safeFetch("not a url")).toMatchObject({ reason: "url-invalid" });
  });

  it("reports a name that does not resolve", async () => {
    const dns = fakeResolver({ "empty.example.com": [] });
    expect(await safeFetch("http://nowhere.example.com/", { resolve: dns.resolve })).toMatchObject({
      reason: "dns-failed",
    });
    expect(await safeFetch("http://empty.example.com/", { resolve: dns.resolve })).toMatchObject({
      reason: "dns-failed",
    });
  });
});

describe("safeFetch: with a test policy admitting 127.0.0.1 only", () => {
  it("fetches through the pinned address: the name is resolved once, by our resolver, never by the system", async () => {
    const s = await page();
    // `site.test` exists only in the fake zone: if the HTTP stack resolved it itself, the request would fail.
    const dns = fakeResolver({ "site.test": ["127.0.0.1"] });
    const r = await safeFetch(`http://site.test:${s.port}/a?b=1`, {
      resolve: dns.resolve,
      allow: onlyLoopback1,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.response).toMatchObject({
      status: 200,
      mediaType: "text/html",
      charset: "utf-8",
      truncated: false,
    });
    expect(r.response.body.toString()).toContain("hello");
    expect(dns.calls).toEqual(["site.test"]);
    expect(s.requests[0]?.headers.host).toBe(`site.test:${s.port}`);
    expect(s.requests[0]?.url).toBe("/a?b=1");
  });

  it("re-checks a redirect to a private address and never connects to it", async () => {
    // The private target really exists (127.0.0.2 on loopback): without the per-hop check it would be fetched.
    const inside = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("secret");
    }, "127.0.0.2");
    const outside = await serve((_req, res) => {
      res.writeHead(302, { location: `http://internal.test:${inside.port}/secret` });
      res.end();
    });
    const dns = fakeResolver({ "public.test": ["127.0.0.1"], "internal.test": ["127.0.0.2"] });
    const r = await safeFetch(`http://public.test:${outside.port}/`, {
      resolve: dns.resolve,
      allow: onlyLoopback1,
    });
    expect(r).toMatchObject({ ok: false, reason: "address-not-public" });
    expect(outside.requests).toHaveLength(1);
    expect(inside.requests).toHaveLength(0);
  });

  it("re-checks a redirect to the metadata endpoint and to integer and hex IP literals", async () => {
    // 167772161 is 10.0.0.1; 0xa9.0xfe.0xa9.0xfe is the metadata endpoint in hex.
    for (const location of [
      "http://169.254.169.254/latest/meta-data/",
      "http://167772161/",
      "http://0xa9.0xfe.0xa9.0xfe/",
    ]) {
      const s = await serve((_req, res) => {
        res.writeHead(301, { location });
        res.end();
      });
      const r = await safeFetch(`${s.origin}/`, { allow: onlyLoopback1 });
      expect(r).toMatchObject({ ok: false, reason: "address-not-public" });
    }
  });

  it("follows relative redirects and reports the final URL", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/start") {
        res.writeHead(303, { location: "/end" });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("arrived");
    });
    const r = await safeFetch(`${s.origin}/start`, { allow: onlyLoopback1 });
    expect(r.ok && r.response).toMatchObject({ url: `${s.origin}/end`, redirects: 1, status: 200 });
  });

  it("caps redirects", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(302, { location: "/again" });
      res.end();
    });
    const r = await safeFetch(`${s.origin}/`, { allow: onlyLoopback1, maxRedirects: 3 });
    expect(r).toMatchObject({ ok: false, reason: "too-many-redirects" });
    expect(s.requests).toHaveLength(4);
  });

  it("sends caller headers (an API key) to the first origin only, never across a redirect", async () => {
    const other = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    const first = await serve((_req, res) => {
      res.writeHead(302, { location: `${other.origin}/` });
      res.end();
    });
    const r = await safeFetch(`${first.origin}/`, {
      allow: onlyLoopback1,
      headers: { "x-api-key": "k-123" },
    });
    expect(r.ok).toBe(true);
    expect(first.requests[0]?.headers["x-api-key"]).toBe("k-123");
    expect(other.requests[0]?.headers["x-api-key"]).toBeUndefined();
  });

  it("stops reading at the byte cap and cuts the connection", async () => {
    let closedEarly = false;
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.on("close", () => {
        closedEarly = !res.writableFinished;
      });
      const chunk = "x".repeat(16 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const r = await safeFetch(`${s.origin}/`, { allow: onlyLoopback1, maxBytes: 10_000 });
    expect(r.ok && r.response.truncated).toBe(true);
    expect(r.ok && r.response.body.length).toBe(10_000);
    await new Promise((res) => setTimeout(res, 50));
    expect(closedEarly).toBe(true);
  });

  it("applies the byte cap to decoded bytes (a gzip bomb stops at the cap)", async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x61));
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(bomb);
    });
    const r = await safeFetch(`${s.origin}/`, { allow: onlyLoopback1, maxBytes: 100_000 });
    expect(bomb.length).toBeLessThan(100_000);
    expect(r.ok && r.response.body.length).toBe(100_000);
    expect(r.ok && r.response.truncated).toBe(true);
  });

  it("times out a server that never answers, on the caller's timeout", async () => {
    const s = await serve(() => {});
    // The timer, watched rather than the wall clock: the caller's 200 ms is the one armed, and its firing is
    // what ends the fetch (a fetch that ignored timeoutMs would arm the default and still be waiting).
    const timer = vi.spyOn(AbortSignal, "timeout");
    try {
      const r = await safeFetch(`${s.origin}/`, { allow: onlyLoopback1, timeoutMs: 200 });
      expect(r).toMatchObject({ ok: false, reason: "timeout" });
      expect(timer.mock.calls).toEqual([[200]]);
      expect(timer.mock.results[0]?.value).toMatchObject({ aborted: true });
    } finally {
      timer.mockRestore();
    }
  });

  it("times out a body that trickles", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const t = setInterval(() => res.write("."), 20);
      res.on("close", () => clearInterval(t));
    });
    const r = await safeFetch(`${s.origin}/`, { allow: onlyLoopback1, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, reason: "timeout" });
  });

  it("refuses media types it does not read, without reading the body", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(Buffer.alloc(1000));
    });
    expect(await safeFetch(`${s.origin}/`, { allow: onlyLoopback1 })).toMatchObject({
      ok: false,
      reason: "content-type-not-allowed",
    });
  });

  it("the test policy still refuses what it does not name", async () => {
    const s = await page();
    const dns = fakeResolver({ "two.test": ["127.0.0.1", "127.0.0.2"] });
    const r = await safeFetch(`http://two.test:${s.port}/`, { resolve: dns.resolve, allow: onlyLoopback1 });
    expect(r).toMatchObject({ ok: false, reason: "address-not-public" });
    expect(s.requests).toHaveLength(0);
  });
});
