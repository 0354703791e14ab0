import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { decodeResultUrl, parseResultsPage } from "../../../shared/net/duckduckgo.ts";
import { makeWebSearchTool } from "../../../shared/tool-framework/builtin/web-search.ts";
import { fakeResolver, type LocalServer, startServer } from "../net/local-server.ts";
import { noMailbox, toolContext } from "./tool-context.ts";

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/web/${name}`, import.meta.url), "utf8");
const RESULTS = fixture("duckduckgo-results.html");
const NO_RESULTS = fixture("duckduckgo-no-results.html");
const BASE = "https://html.duckduckgo.com/html/?q=rfc";

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const ctx = toolContext(noMailbox);

describe("DuckDuckGo results page", () => {
  it("parses results, decodes uddg redirects and entities, drops ads, non-http targets", () => {
    const page = parseResultsPage(RESULTS, BASE);
    expect(page.kind).toBe("results");
    const results = page.kind === "results" ? page.results : [];
    expect(results.map((r) => r.url)).toEqual([
      "https://www.rfc-editor.org/rfc/rfc5322",
      "https://datatracker.ietf.org/doc/html/rfc5322",
      "https://en.wikipedia.org/wiki/Email#Message_format?src=ddg&lang=en",
      "https://www.rfc-editor.org/rfc/rfc5322",
      "https://www.ietf.org/rfc/rfc2822.txt",
    ]);
    expect(results[0]?.title).toBe("RFC 5322: Internet Message Format");
    expect(results[0]?.snippet).toContain('framework of "electronic mail" messages');
    expect(results[1]?.snippet).toContain("RFC 2822 & updates RFC 4021");
    expect(results[1]?.snippet).toContain("<angle-bracketed> addresses");
    expect(results.some((r) => r.title.includes("Email Hosting") || r.url.includes("mailvendor"))).toBe(
      false,
    );
  });

  it("tells an empty result page from an unrecognised one", () => {
    expect(parseResultsPage(NO_RESULTS, BASE)).toEqual({ kind: "no-results" });
    expect(parseResultsPage("<html><body><p>Please complete the challenge</p></body></html>", BASE)).toEqual({
      kind: "unrecognised",
    });
  });

  it.each([
    ["//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx&rut=1", "https://a.example/x"],
    ["https://duckduckgo.com/y.js?ad_domain=x", null],
    ["//duckduckgo.com/l/?uddg=file%3A%2F%2F%2Fetc%2Fpasswd", null],
    ["//duckduckgo.com/l/?rut=1", null],
    ["https://direct.example/page", "https://direct.example/page"],
    ["/html/?q=next", null],
  ])("decodeResultUrl(%s) = %s", (href, expected) => {
    expect(decodeResultUrl(href, BASE)).toBe(expected);
  });
});

describe("web_search against the stored page served locally", () => {
  async function ddg(body: string, status = 200) {
    const s = await startServer((_req, res) => {
      res.writeHead(status, { "content-type": "text/html; charset=UTF-8" });
      res.end(body);
    });
    servers.push(s);
    const dns = fakeResolver({ "html.ddg.test": ["127.0.0.1"] });
    const tool = makeWebSearchTool({
      endpoint: `http://html.ddg.test:${s.port}/html/`,
      fetch: { resolve: dns.resolve, allow: (a) => a === "127.0.0.1" },
    });
    return { s, tool };
  }

  it("returns bounded, de-duplicated { title, url, snippet } results", async () => {
    const { s, tool } = await ddg(RESULTS);
    const r = await tool.use(ctx, { query: "rfc 5322 message format", limit: 3 });
    expect(r.ok).toBe(true);
    const data = (r.ok ? r.data : {}) as { results: { title: string; url: string; snippet: string }[] };
    expect(data.results).toHaveLength(3);
    expect(data.results.map((x) => x.url)).toEqual([
      "https://www.rfc-editor.org/rfc/rfc5322",
      "https://datatracker.ietf.org/doc/html/rfc5322",
      "https://en.wikipedia.org/wiki/Email#Message_format?src=ddg&lang=en",
    ]);
    expect(data.results[0]?.snippet).toBe(
      'This document specifies the Internet Message Format (IMF), a syntax for text messages that are sent between computer users, within the framework of "electronic mail" messages.',
    );
    expect(new URL(`http://x${s.requests[0]?.url}`).searchParams.get("q")).toBe("rfc 5322 message format");
    const all = await tool.use(ctx, { query: "rfc 5322" });
    expect(((all.ok ? all.data : {}) as { results: unknown[] }).results).toHaveLength(4);
  });

  it("an empty result page is an empty list; a challenge or an error status is search-unavailable", async () => {
    expect((await (await ddg(NO_RESULTS)).tool.use(ctx, { query: "qzxv" })).ok).toBe(true);
    const challenge = await ddg("<html><body>anomaly</body></html>");
    expect(await challenge.tool.use(ctx, { query: "x" })).toMatchObject({
      ok: false,
      reason: "search-unavailable",
    });
    const limited = await ddg(RESULTS, 202);
    expect(await limited.tool.use(ctx, { query: "x" })).toMatchObject({
      ok: false,
      reason: "search-unavailable",
    });
  });

  it("fetches through the SSRF guard: the default policy will not query a loopback endpoint", async () => {
    const s = await startServer((_req, res) => res.end(RESULTS));
    servers.push(s);
    const tool = makeWebSearchTool({ endpoint: `${s.origin}/html/` });
    expect(await tool.use(ctx, { query: "x" })).toMatchObject({ ok: false, reason: "search-unavailable" });
    expect(s.requests).toHaveLength(0);
  });

  it("bounds the count in its input schema", () => {
    const tool = makeWebSearchTool();
    expect(tool.input.safeParse({ query: "x", limit: 11 }).success).toBe(false);
    expect(tool.input.safeParse({ query: "" }).success).toBe(false);
    expect(tool.egress).toMatchObject({ kind: "classified", record: false });
  });
});
