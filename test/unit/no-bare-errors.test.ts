import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../layers/source-files.ts";

// One error base class with stable codes (shared/errors.ts): an unexpected failure in shipped code is a
// PosternError (or a module's own error class carrying a reason), so a log search, an alarm or a caller can tell
// failures apart by code. A built-in Error thrown bare has no code; the house sweep removed 66 of them and four came
// back with the next two modules, so this check keeps them out.

const ROOT = resolve(import.meta.dirname, "../..");
const SHIPPED = ["shared", "console", "cli", "functions", "infra", "tools", "bin"];
const BUILT_IN = /\bthrow\s+new\s+(Error|TypeError|RangeError|SyntaxError|ReferenceError)\s*\(/g;

/** `file:line` of every built-in error thrown bare in `text`. */
function bareThrows(path: string, text: string): string[] {
  return [...text.matchAll(BUILT_IN)].map(
    (m) => `${path}:${text.slice(0, m.index).split("\n").length} (${m[1]})`,
  );
}

describe("shipped code throws coded errors only", () => {
  it("finds a bare built-in error in a probe", () => {
    expect(bareThrows("probe.ts", 'const x = 1;\nif (!x) throw new Error("no code");\n')).toEqual([
      "probe.ts:2 (Error)",
    ]);
    expect(bareThrows("probe.ts", 'throw new PosternError("misconfigured", "coded");\n')).toEqual([]);
  });

  it("no file under shared, console, cli, functions, infra, tools or bin throws one", () => {
    const found = sourceFiles(ROOT, SHIPPED).flatMap((p) =>
      bareThrows(p, readFileSync(join(ROOT, p), "utf8")),
    );
    expect(found).toEqual([]);
  });
});
