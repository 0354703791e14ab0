// Front door of shared/net: the egress-checked fetch, readable text and web search. Outside this folder,
// import this file only (docs/architecture.md).

export { isPublicAddress } from "./address-policy.ts";
export { type DuckDuckGoOptions, duckDuckGoProvider } from "./duckduckgo.ts";
export { htmlLibraries } from "./html-libraries.ts";
export { pinnedLookup } from "./pinned-request.ts";
export { decodeText, readableText, truncateText } from "./readable-text.ts";
export { type HostResolver, systemResolver } from "./resolver.ts";
export { type SafeFetchFailure, type SafeFetchOptions, safeFetch } from "./safe-fetch.ts";
export { type SearchProvider, type SearchReason, type SearchResult, tidyResults } from "./search.ts";
export { type VettedTarget, vetTarget } from "./vet-target.ts";
