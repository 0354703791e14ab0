// Front door of shared/net: the egress-checked fetch, readable text and web search. Outside this folder,
// import this file only (docs/architecture.md).

export { type DuckDuckGoOptions, duckDuckGoProvider } from "./duckduckgo.ts";
export { decodeText, readableText, truncateText } from "./readable-text.ts";
export { type SafeFetchFailure, type SafeFetchOptions, safeFetch } from "./safe-fetch.ts";
export { type SearchOutcome, type SearchProvider, type SearchReason, tidyResults } from "./search.ts";
