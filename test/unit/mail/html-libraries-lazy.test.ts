import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../../layers/source-files.ts";

// html-to-text and node-html-parser (~235 KB with their dependencies) load on first use through
// shared/net/html-libraries.ts, not at the cold start of verify, agent-step and outbound (issue 32: agent-step's
// web fetch and search loaded them at every start). A value import anywhere else would load them at start again;
// a type import is erased and costs nothing.

const ROOT = resolve(import.meta.dirname, "../../..");
const SHIPPED = ["shared", "functions", "cli", "console", "tools"];
const LOADER = "shared/net/html-libraries.ts";
const VALUE_IMPORT = /^\s*import\s+(?!type\b)[^;]*?from\s+["'](html-to-text|node-html-parser)["']/gm;

function eagerImports(path: string, text: string): string[] {
  if (path === LOADER) return [];
  return [...text.matchAll(VALUE_IMPORT)].map(
    (m) => `${path}:${text.slice(0, m.index).split("\n").length} ${m[1]}`,
  );
}

describe("the HTML libraries load on first use only", () => {
  it("finds a value import in a probe, and lets a type import be", () => {
    expect(eagerImports("shared/net/x.ts", 'import { convert } from "html-to-text";\n')).toEqual([
      "shared/net/x.ts:1 html-to-text",
    ]);
    expect(eagerImports("shared/net/x.ts", 'import type { HTMLElement } from "node-html-parser";\n')).toEqual(
      [],
    );
  });

  it("no shipped file but the loader imports them as values", () => {
    const found = sourceFiles(ROOT, SHIPPED).flatMap((p) =>
      eagerImports(p, readFileSync(join(ROOT, p), "utf8")),
    );
    expect(found).toEqual([]);
  });
});
