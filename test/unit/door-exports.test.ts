import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exportedNames, unusedDoorExports } from "../layers/door-exports.ts";

// A front door exports what other modules use, nothing more (issue: the events door re-exported 64 names, 44 used
// by no shipped file outside it; 87 across the doors). Tests may import a module's inner files, so a name kept
// only for a test is not public API. A name kept on purpose for readers outside the repository goes in PUBLIC_API,
// with its reason; none does today.

const ROOT = resolve(import.meta.dirname, "../..");

/** Door exports kept although no shipped file outside their module imports them: `module → name → why`. */
const PUBLIC_API: Readonly<Record<string, Readonly<Record<string, string>>>> = {};

const dir = mkdtempSync(join(tmpdir(), "postern-doors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(dir, "t-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("front doors export what other modules use", () => {
  it("reads a door's names: re-export lists with type and as, and declarations", () => {
    expect(
      exportedNames(
        'export { a, type B, c as d } from "./x.ts";\nexport type { E } from "./y.ts";\nexport function f() {}\nexport const G = 1;\n',
      ).sort(),
    ).toEqual(["B", "E", "G", "a", "d", "f"]);
  });

  it("finds an export no shipped file outside the module imports, whatever the module itself and tests do", () => {
    const root = tree({
      "shared/a/index.ts": 'export { used, lazy, onlyInside, onlyTested } from "./impl.ts";\n',
      "shared/a/impl.ts": 'import { onlyInside } from "./index.ts";\nexport const used = 1;\n',
      "shared/b/use.ts": 'import { used } from "../a/index.ts";\n',
      // The CLI loads a module lazily: the names it mentions count as used.
      "cli/lazy.ts": 'const m = await import("../shared/a/index.ts");\nm.lazy();\n',
      "test/a.test.ts": 'import { onlyTested } from "../shared/a/index.ts";\n',
    });
    expect(unusedDoorExports(root)).toEqual({ "shared/a": ["onlyInside", "onlyTested"] });
  });

  it("every door in the repository exports only what is used outside its module, or is listed as public API", () => {
    const unused = unusedDoorExports(ROOT);
    const unlisted = Object.fromEntries(
      Object.entries(unused)
        .map(
          ([module, names]) => [module, names.filter((n) => PUBLIC_API[module]?.[n] === undefined)] as const,
        )
        .filter(([, names]) => names.length > 0),
    );
    expect(unlisted).toEqual({});
  });
});
