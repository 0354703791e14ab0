/**
 * Example operator plug-in: a keyed web search provider (Brave Search API). Copy this file for another provider
 * (Tavily, Bing, SerpAPI, ...): implement `SearchProvider.search`, fetch through `safeFetch` (the same SSRF
 * guard and caps as web_fetch), and register the tool in tools/index.ts only when the key is present.
 *
 * The key comes from the environment (G16: the variable's name ends in `_API_KEY`; in AWS, set it on the
 * agent-step function from Secrets Manager). It is sent only to the provider's origin (safeFetch drops extra
 * headers on a cross-origin redirect) and never appears in a result or an error message.
 */
import * as z from "zod";
import type { SearchProvider, SearchResult } from "../shared/net/index.ts";
import { decodeText, htmlLibraries, type SafeFetchOptions, safeFetch } from "../shared/net/index.ts";
import { fail } from "../shared/result.ts";
import type { Tool } from "../shared/tool-framework/index.ts";
import { defineSearchTool } from "../shared/tool-framework/index.ts";

export const BRAVE_KEY_ENV = "BRAVE_SEARCH_API_KEY";
export const BRAVE_ENDPOINT = "https://api.search.brave.com/res/v1/web/search";

export interface BraveOptions {
  readonly apiKey: string;
  /** Override for tests (a local server speaking Brave's wire format). */
  readonly endpoint?: string;
  readonly fetch?: Omit<SafeFetchOptions, "headers" | "signal" | "acceptMediaType">;
}

/** Brave's response, narrowed to what we read; everything else is ignored. */
const braveResponse = z.object({
  web: z
    .object({
      results: z
        .array(z.object({ title: z.string(), url: z.string(), description: z.string().optional() }))
        .default([]),
    })
    .optional(),
});

export function braveSearchProvider(opts: BraveOptions): SearchProvider {
  const endpoint = opts.endpoint ?? BRAVE_ENDPOINT;
  return {
    id: "brave",
    async search(query: string, limit: number): Promise<SearchResult> {
      const url = new URL(endpoint);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(limit));
      const fetched = await safeFetch(url.href, {
        timeoutMs: 10_000,
        maxBytes: 1024 * 1024,
        ...opts.fetch,
        headers: { accept: "application/json", "x-subscription-token": opts.apiKey },
        acceptMediaType: (t) => t === "application/json",
      });
      if (!fetched.ok) return fail("search-unavailable", fetched.detail);
      const { status, body, charset } = fetched.response;
      if (status === 401 || status === 403) {
        return fail("search-auth-failed", `the search provider refused the key (HTTP ${status})`);
      }
      if (status === 429) return fail("search-rate-limited", "the search provider is rate-limiting");
      if (status !== 200) return fail("search-unavailable", `the search provider answered HTTP ${status}`);
      let json: unknown;
      try {
        json = JSON.parse(decodeText(body, charset));
      } catch {
        return fail("search-unavailable", "the search provider returned invalid JSON");
      }
      const parsed = braveResponse.safeParse(json);
      if (!parsed.success) return fail("search-unavailable", "unexpected response shape");
      const results = (parsed.data.web?.results ?? []).map((r) => ({
        title: r.title,
        url: r.url,
        // Brave marks matches with <strong>: parse it as HTML rather than strip tags with a regex.
        snippet: htmlLibraries().parse(r.description ?? "").text,
      }));
      return { ok: true, results };
    },
  };
}

/** The `brave_search` tool when `BRAVE_SEARCH_API_KEY` is set, else null (the tool does not exist at all). */
export function braveSearchToolFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: Omit<BraveOptions, "apiKey"> = {},
): Tool | null {
  const apiKey = env[BRAVE_KEY_ENV]?.trim();
  if (!apiKey) return null;
  return defineSearchTool({
    name: "brave_search",
    provider: braveSearchProvider({ ...opts, apiKey }),
    summary: "Web search through the Brave Search API (operator's key).",
  });
}
