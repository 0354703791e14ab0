import { fail } from "../result.ts";
import { htmlLibraries } from "./html-libraries.ts";
import { decodeText } from "./readable-text.ts";
import { type SafeFetchOptions, safeFetch } from "./safe-fetch.ts";
import type { SearchHit, SearchProvider, SearchResult } from "./search.ts";
import { tidyResults } from "./search.ts";

export const DUCKDUCKGO_HTML_ENDPOINT = "https://html.duckduckgo.com/html/";

/**
 * Result links on the HTML endpoint go through a redirector, `//duckduckgo.com/l/?uddg=<target>&rut=...`; the
 * real target is the `uddg` parameter. Ads link to `y.js` and are dropped, as is anything not http(s).
 */
export function decodeResultUrl(href: string, base: string): string | null {
  let u: URL;
  try {
    u = new URL(href, base);
  } catch {
    return null;
  }
  const isDdg = u.hostname === "duckduckgo.com" || u.hostname.endsWith(".duckduckgo.com");
  let target: string | null = u.href;
  if (isDdg) target = u.pathname === "/l/" ? u.searchParams.get("uddg") : null;
  if (!target) return null;
  try {
    const t = new URL(target);
    return t.protocol === "http:" || t.protocol === "https:" ? t.href : null;
  } catch {
    return null;
  }
}

export type ParsedResultsPage =
  | { readonly kind: "results"; readonly results: SearchHit[] }
  | { readonly kind: "no-results" }
  | { readonly kind: "unrecognised" };

/** Parse a results page with a real HTML parser (node-html-parser), not regexes over markup. */
export function parseResultsPage(html: string, base: string): ParsedResultsPage {
  const root = htmlLibraries().parse(html);
  const results: SearchHit[] = [];
  for (const block of root.querySelectorAll("div.result")) {
    if (block.classList.contains("result--ad")) continue;
    const link = block.querySelector("a.result__a");
    const href = link?.getAttribute("href");
    if (!link || !href) continue;
    const url = decodeResultUrl(href, base);
    if (!url) continue;
    results.push({
      title: link.text,
      url,
      snippet: block.querySelector(".result__snippet")?.text ?? "",
    });
  }
  if (results.length > 0) return { kind: "results", results };
  if (root.querySelector(".no-results")) return { kind: "no-results" };
  return { kind: "unrecognised" };
}

export interface DuckDuckGoOptions {
  /** Override for tests (a local server serving a stored page). */
  readonly endpoint?: string;
  readonly fetch?: Omit<SafeFetchOptions, "headers" | "signal" | "acceptMediaType">;
}

/** Keyless, best-effort: DuckDuckGo may rate-limit or challenge, which surfaces as `search-unavailable`. */
export function duckDuckGoProvider(opts: DuckDuckGoOptions = {}): SearchProvider {
  const endpoint = opts.endpoint ?? DUCKDUCKGO_HTML_ENDPOINT;
  return {
    id: "duckduckgo",
    host: new URL(endpoint).hostname.toLowerCase(),
    async search(query: string, limit: number): Promise<SearchResult> {
      const url = new URL(endpoint);
      url.searchParams.set("q", query);
      const fetched = await safeFetch(url.href, {
        maxBytes: 1024 * 1024,
        timeoutMs: 10_000,
        ...opts.fetch,
        acceptMediaType: (t) => t === "text/html",
      });
      if (!fetched.ok) return fail("search-unavailable", fetched.detail);
      const r = fetched.response;
      if (r.status !== 200) {
        return fail("search-unavailable", `the search service answered HTTP ${r.status}`);
      }
      const page = parseResultsPage(decodeText(r.body, r.charset), r.url);
      if (page.kind === "unrecognised") {
        // A challenge page or a markup change: say so rather than pretend nothing matched.
        return fail("search-unavailable", "the search service returned no result page");
      }
      return { ok: true, results: page.kind === "results" ? tidyResults(page.results, limit) : [] };
    },
  };
}
