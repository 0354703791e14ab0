import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// One value import of zod's `z` object (`import { z } from "zod"`) puts all of zod in a function's bundle, because
// esbuild cannot tree-shake the members of an object: shared/agent/mailbox/mailbox.ts doing so kept agent-step at
// 1,711 KB (1,348 KB with the namespace import). `import * as z from "zod"` lets esbuild keep only the
// schemas used; `import type { z }` costs nothing.

const ROOT = resolve(import.meta.dirname, "../..");
const BUNDLED = ["shared", "functions", "tools", "infra", "cli", "console"];

function* tsFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* tsFiles(path);
    else if (path.endsWith(".ts")) yield path;
  }
}

/** Value imports of zod that name `z` (the whole-library object), type-only ones excepted. */
const Z_VALUE_IMPORT = /^import\s+\{([^}]*)\}\s+from\s+["']zod(?:\/v4)?["']/gm;
const namesZ = (specifiers: string) => specifiers.split(",").some((s) => /^\s*z(\s+as\s+\w+)?\s*$/.test(s));

describe("zod imports in bundled code", () => {
  it("never take `z` as a named value import (the whole library); use `import * as z`", () => {
    const offenders: string[] = [];
    for (const dir of BUNDLED) {
      for (const file of tsFiles(join(ROOT, dir))) {
        for (const m of readFileSync(file, "utf8").matchAll(Z_VALUE_IMPORT))
          if (namesZ(m[1] ?? "")) offenders.push(relative(ROOT, file));
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the check sees the import that cost agent-step 363 KB", () => {
    const src = 'import { randomBytes } from "node:crypto";\nimport { z } from "zod";\n';
    expect([...src.matchAll(Z_VALUE_IMPORT)].some((m) => namesZ(m[1] ?? ""))).toBe(true);
    for (const ok of [
      'import type { z } from "zod";',
      'import * as z from "zod";',
      'import { type z } from "zod";',
    ])
      expect(
        [...ok.matchAll(Z_VALUE_IMPORT)].some((m) => namesZ(m[1] ?? "")),
        ok,
      ).toBe(false);
  });
});
