import { afterEach, describe, expect, it } from "vitest";
import { operatorTools } from "../../../tools/index.ts";
import {
  BRAVE_KEY_ENV,
  braveSearchProvider,
  braveSearchToolFromEnv,
} from "../../../tools/search-provider.ts";
import { fakeResolver, type LocalServer, startServer } from "../net/local-server.ts";
import { noMailbox, toolContext } from "./tool-context.ts";

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const KEY = "BSA-test-key-not-real";

/** Brave's wire format (GET /res/v1/web/search, X-Subscription-Token), trimmed to the fields we read. */
async function brave(status = 200, body: unknown = BRAVE_BODY) {
  const s = await startServer((req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(status === 200 ? body : { type: "ErrorResponse", error: { code: "x" } }));
    void req;
  });
  servers.push(s);
  const dns = fakeResolver({ "api.brave.test": ["127.0.0.1"] });
  const opts = {
    endpoint: `http://api.brave.test:${s.port}/res/v1/web/search`,
    fetch: { resolve: dns.resolve, allow: (a: string) => a === "127.0.0.1" },
  };
  return { s, opts };
}
const BRAVE_BODY = {
  type: "search",
  query: { original: "postern" },
  web: {
    type: "search",
    results: [
      {
        title: "Postern gate",
        url: "https://en.wikipedia.org/wiki/Postern",
        description: "A <strong>postern</strong> is a secondary door &amp; gate.",
      },
      { title: "Bad", url: "javascript:alert(1)", description: "dropped" },
      { title: "Second", url: "https://example.org/2", description: "two" },
    ],
  },
};

describe("keyed search provider plug-in (Brave)", () => {
  it("is registered only when its key env var is set", () => {
    expect(braveSearchToolFromEnv({})).toBeNull();
    expect(braveSearchToolFromEnv({ [BRAVE_KEY_ENV]: "  " })).toBeNull();
    expect(operatorTools({}).map((t) => t.name)).not.toContain("brave_search");
    expect(operatorTools({ [BRAVE_KEY_ENV]: KEY }).map((t) => t.name)).toContain("brave_search");
    expect(BRAVE_KEY_ENV).toMatch(/_API_KEY$/);
  });

  it("sends the key header and returns { title, url, snippet } through the shared tool shape", async () => {
    const { s, opts } = await brave();
    const tool = braveSearchToolFromEnv({ [BRAVE_KEY_ENV]: KEY }, opts);
    const r = await tool?.use(toolContext(noMailbox), { query: "postern", limit: 5 });
    expect(r).toEqual({
      ok: true,
      data: {
        query: "postern",
        provider: "brave",
        results: [
          {
            title: "Postern gate",
            url: "https://en.wikipedia.org/wiki/Postern",
            snippet: "A postern is a secondary door & gate.",
          },
          { title: "Second", url: "https://example.org/2", snippet: "two" },
        ],
      },
    });
    expect(s.requests[0]?.headers["x-subscription-token"]).toBe(KEY);
    const q = new URL(`http://x${s.requests[0]?.url}`).searchParams;
    expect([q.get("q"), q.get("count")]).toEqual(["postern", "5"]);
  });

  it("maps auth and rate-limit failures to stable reasons without leaking the key", async () => {
    for (const [status, reason] of [
      [401, "search-auth-failed"],
      [429, "search-rate-limited"],
      [500, "search-unavailable"],
    ] as const) {
      const { opts } = await brave(status);
      const r = await braveSearchProvider({ apiKey: KEY, ...opts }).search("x", 3);
      expect(r).toMatchObject({ ok: false, reason });
      expect(JSON.stringify(r)).not.toContain(KEY);
    }
  });

  it("refuses a malformed answer", async () => {
    const { opts } = await brave(200, { web: { results: [{ title: 1 }] } });
    expect(await braveSearchProvider({ apiKey: KEY, ...opts }).search("x", 3)).toMatchObject({
      ok: false,
      reason: "search-unavailable",
    });
  });
});
