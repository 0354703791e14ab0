import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedPost } from "../../../shared/webhooks/pinned-post.ts";

// The endpoint's host is vetted as web_fetch's is (shared/net): a webhook URL is an operator's, but its DNS is
// anyone's, and the worker runs inside the account. No test here reaches the network: names resolve through a map.
const zone: Record<string, string[]> = {
  "metadata.example": ["169.254.169.254"],
  "intranet.example": ["10.0.0.7"],
  "mixed.example": ["93.184.216.34", "192.168.1.1"],
  "public.example": ["93.184.216.34"],
  "loop.example": ["127.0.0.1"],
};
const resolve = async (host: string) => zone[host] ?? [];

let server: Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const post = (url: string, allowLoopback: boolean) =>
  pinnedPost({ resolve, allowLoopback })(url, { "content-type": "application/json" }, "{}", 2000);

describe("pinnedPost: the SSRF guard on webhook endpoints", () => {
  it("refuses loopback in the deployed setting, even by name", async () => {
    expect(await post(`http://127.0.0.1:${port}/hook`, false)).toMatchObject({
      reason: "address-not-public",
    });
    expect(await post(`https://loop.example:${port}/hook`, false)).toMatchObject({
      reason: "address-not-public",
    });
    expect(hits).toBe(0);
  });

  it("refuses private, link-local (instance metadata) and mixed answers, even with the local-only setting", async () => {
    for (const host of ["metadata.example", "intranet.example", "mixed.example"])
      expect(await post(`https://${host}/hook`, true)).toMatchObject({
        ok: false,
        reason: "address-not-public",
      });
    expect(await post("https://[::ffff:10.0.0.1]/hook", true)).toMatchObject({
      reason: "address-not-public",
    });
  });

  it("refuses plain http to a public host: events travel over TLS", async () => {
    expect(await post("http://public.example/hook", true)).toMatchObject({ reason: "scheme-not-allowed" });
  });

  it("reaches a loopback receiver only with the local-only setting", async () => {
    expect(await post(`http://127.0.0.1:${port}/hook`, true)).toEqual({ ok: true, status: 204 });
    expect(hits).toBe(1);
  });
});
