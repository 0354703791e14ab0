import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The source files (`.ts`, `.tsx`, `.mts`, `.mjs`; declaration files left out) under each of `dirs`, as paths
 * relative to `root`; a folder that does not exist has none, and node_modules is never entered. The one walk the
 * repository checks share (the module map, the doors, the house rules over shipped code).
 */
export function sourceFiles(root: string, dirs: readonly string[]): string[] {
  const walk = (dir: string): string[] => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return [];
    }
    return entries.flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === "node_modules" ? [] : walk(path);
      return /\.(ts|tsx|mts|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
    });
  };
  return dirs.flatMap(walk);
}
