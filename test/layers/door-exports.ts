import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { sourceFiles } from "./source-files.ts";

/**
 * Front-door exports that no shipped file outside the module imports. A door that re-exports a module's inner
 * names for nobody turns every inner name into public API: renaming one then means searching the whole tree. Tests
 * are not shipped code and may import a module's inner files (they test inner behaviour), so they do not count.
 */

const SHIPPED = ["shared", "functions", "cli", "console", "infra", "bin", "tools"];

/** The names a door exports: `export { a, type B as C } from`, `export type { ... }`, and declarations. */
export function exportedNames(source: string): string[] {
  const names = new Set<string>();
  for (const m of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const part of (m[1] as string).split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.add(name);
    }
  for (const m of source.matchAll(
    /export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/g,
  ))
    names.add(m[1] as string);
  return [...names];
}

/**
 * The names `source` imports or re-exports from a door (`isDoor` says which specifiers are one). A namespace import
 * (`* as x`) or a dynamic `import()` of a door (the CLI loads modules lazily) binds no names, so it counts every
 * exported name the file mentions as a word: conservative, it may keep an export, never flag a used one.
 */
export function importedNames(
  source: string,
  isDoor: (specifier: string) => boolean,
  exported: readonly string[],
): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/(?:import|export)\s+(?:type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g)) {
    if (!isDoor(m[2] as string)) continue;
    const clause = m[1] as string;
    if (/\*\s+as\s+/.test(clause) || clause.trim() === "*") mentioned(source, exported, names);
    const braces = clause.match(/\{([^}]*)\}/);
    for (const part of (braces?.[1] ?? "").split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]
        ?.trim();
      if (name) names.add(name);
    }
  }
  for (const m of source.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g))
    if (isDoor(m[1] as string)) mentioned(source, exported, names);
  return names;
}

function mentioned(source: string, exported: readonly string[], into: Set<string>): void {
  for (const name of exported)
    if (new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`).test(source)) into.add(name);
}

/** `shared/<module>/index.ts` → its exports that no shipped file outside `shared/<module>/` imports. */
export function unusedDoorExports(root: string): Record<string, string[]> {
  const files = sourceFiles(root, SHIPPED);
  const doors = files.filter((f) => /^shared\/[^/]+\/index\.ts$/.test(f));
  const out: Record<string, string[]> = {};
  for (const door of doors) {
    const dir = dirname(door);
    const doorAbs = resolve(root, door);
    const exported = exportedNames(readFileSync(join(root, door), "utf8"));
    const used = new Set<string>();
    for (const file of files) {
      if (file.startsWith(`${dir}/`)) continue;
      const from = dirname(resolve(root, file));
      const isDoor = (spec: string) => {
        if (!spec.startsWith(".")) return false;
        const target = resolve(from, spec);
        return target === doorAbs || target === dirname(doorAbs);
      };
      for (const n of importedNames(readFileSync(join(root, file), "utf8"), isDoor, exported)) used.add(n);
    }
    const unused = exported.filter((n) => !used.has(n));
    if (unused.length > 0) out[relative(root, resolve(root, dir))] = unused.sort();
  }
  return out;
}
