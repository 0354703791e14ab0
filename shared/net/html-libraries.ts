import { createRequire } from "node:module";
import type * as HtmlToText from "html-to-text";
import type * as NodeHtmlParser from "node-html-parser";

/**
 * html-to-text and node-html-parser (with htmlparser2, entities and selderee, ~235 KB of a bundle) load on first use:
 * the first HTML-only mail, fetched HTML page or search results page, rather than at every cold start, where they
 * took ~15 ms in verify and more in agent-step and outbound. `require` is a plain
 * call for esbuild to bundle (it wraps the package so nothing of it runs until called); unbundled ESM has no
 * `require`, and takes one from createRequire.
 */
function load<T>(name: "html-to-text" | "node-html-parser"): T {
  return (
    typeof require === "function"
      ? name === "html-to-text"
        ? require("html-to-text")
        : require("node-html-parser")
      : createRequire(import.meta.url)(name)
  ) as T;
}
let libraries: {
  convert: typeof HtmlToText.convert;
  parse: typeof NodeHtmlParser.parse;
  element: number;
} | null = null;
export function htmlLibraries() {
  if (!libraries) {
    const nhp = load<typeof NodeHtmlParser>("node-html-parser");
    libraries = {
      convert: load<typeof HtmlToText>("html-to-text").convert,
      parse: nhp.parse,
      element: nhp.NodeType.ELEMENT_NODE,
    };
  }
  return libraries;
}
