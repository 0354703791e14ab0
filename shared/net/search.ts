import type { FailWithDetail, Ok } from "../result.ts";

/** One web search hit, whichever provider found it. */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/**
 * Why a search gave nothing (docs/tools/web_search.md): a keyless provider can only be unavailable; a keyed one
 * maps HTTP 401/403 to `search-auth-failed` and 429 to `search-rate-limited`. The model reads the detail, so it
 * never carries the key.
 */
export type SearchReason = "search-unavailable" | "search-auth-failed" | "search-rate-limited";

export type SearchResult = Ok<{ readonly results: readonly SearchHit[] }> | FailWithDetail<SearchReason>;

/**
 * A search backend: the keyless DuckDuckGo one built in, or an operator's keyed provider in `tools/` (Brave,
 * Tavily, ...). Providers must fetch through `safeFetch` and keep their key out of every returned message.
 */
export interface SearchProvider {
  /** Short id for traces (`duckduckgo`, `brave`). */
  readonly id: string;
  /** The host queries go to, lower-case (G18's allow-lists name it); absent when unknown (then never allowed). */
  readonly host?: string;
  search(query: string, limit: number): Promise<SearchResult>;
}

export const MAX_TITLE_CHARS = 300;
export const MAX_SNIPPET_CHARS = 500;

/** Clamp, de-duplicate by URL and keep only http(s) targets: whatever a provider returns, the tool's shape holds. */
export function tidyResults(results: readonly SearchHit[], limit: number): SearchHit[] {
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const r of results) {
    if (out.length >= limit) break;
    if (!/^https?:\/\//i.test(r.url) || seen.has(r.url)) continue;
    seen.add(r.url);
    out.push({
      title: squash(r.title).slice(0, MAX_TITLE_CHARS),
      url: r.url.slice(0, 2048),
      snippet: squash(r.snippet).slice(0, MAX_SNIPPET_CHARS),
    });
  }
  return out;
}

const squash = (s: string): string => s.replace(/\s+/g, " ").trim();
