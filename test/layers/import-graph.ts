import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { init, parse } from "es-module-lexer";
import {
  COMPOSITION_ROOT_FOLDERS,
  COMPOSITION_ROOTS,
  MODULES,
  type ModuleRule,
  OUTSIDE,
  PORTS_DOOR,
} from "./module-map.ts";
import { sourceFiles } from "./source-files.ts";

/**
 * The import graph, checked against the module map (module-map.ts). es-module-lexer reads every import and
 * re-export (static, type-only, and dynamic with a literal specifier) of every file under the listed folders.
 */

export type ImportRule =
  /** A folder under shared/ the map does not list: private until placed. */
  | "unlisted-module"
  /** Another module's inner file instead of its front door. */
  | "front-door"
  /** A module the importer's layer (or folder rule) does not allow. */
  | "layer"
  /** `@aws-sdk/*` where the map does not allow it. */
  | "aws-sdk"
  /** A module only the folder's composition roots may import (OutsideRule.rootsOnly), from another file. */
  | "root-only";

export interface ImportFinding {
  readonly file: string;
  readonly specifier: string;
  readonly rule: ImportRule;
}

const CHECKED = ["shared", ...Object.keys(OUTSIDE)];

/** `shared/<m>/...` → m; `shared/x.ts` (a single-file module) → "x.ts"; anything else → null. */
function moduleOf(path: string): string | null {
  const [top, module] = path.split("/");
  return top === "shared" && module !== undefined ? module : null;
}

const isDoor = (module: string, path: string): boolean =>
  module.endsWith(".ts") || path === `shared/${module}/index.ts`;

const isPortsDoor = (module: string, path: string): boolean => path === `shared/${module}/${PORTS_DOOR}`;

function sharedAllows(from: { rule: ModuleRule; root: boolean }, to: string, path: string): boolean {
  const target = MODULES[to];
  if (!target) return false;
  if (from.root) return true;
  const [a, b] = [from.rule.layer, target.layer];
  if (a <= 2) return b <= a;
  if (a === 3) return b <= 2;
  return b <= 2 || b === 4 || (b === 3 && isPortsDoor(to, path));
}

/** Every import under `root` the module map refuses. */
export async function checkImports(root: string): Promise<ImportFinding[]> {
  await init;
  const findings: ImportFinding[] = [];
  for (const file of sourceFiles(root, CHECKED)) {
    const module = moduleOf(file);
    const rule = module ? MODULES[module] : undefined;
    const outside = module ? undefined : OUTSIDE[file.split("/")[0] as string];
    if (module && !rule) {
      findings.push({ file, specifier: "", rule: "unlisted-module" });
      continue;
    }
    const inModule = module === null ? "" : relative(`shared/${module}`, file);
    const isRoot =
      module !== null &&
      (COMPOSITION_ROOTS.includes(inModule) || COMPOSITION_ROOT_FOLDERS.some((f) => inModule.startsWith(f)));
    const [imports] = parse(readFileSync(join(root, file), "utf8"), file);
    for (const i of imports) {
      const spec = i.n;
      if (!spec) continue;
      const refuse = (r: ImportRule) => findings.push({ file, specifier: spec, rule: r });
      if (spec.startsWith("@aws-sdk/")) {
        if (!(rule?.sdk || outside?.sdk)) refuse("aws-sdk");
        continue;
      }
      if (!spec.startsWith(".")) continue;
      const target = normalize(join(dirname(file), spec));
      const to = moduleOf(target);
      if (module !== null && to === module) continue;
      if (to !== null) {
        const toModule = MODULES[to];
        if (!toModule) {
          refuse("unlisted-module");
          continue;
        }
        const viaPorts = toModule.layer === 3 && isPortsDoor(to, target);
        if (!isDoor(to, target) && !viaPorts) refuse("front-door");
        const allowed = rule
          ? sharedAllows({ rule, root: isRoot }, to, target)
          : outside !== undefined &&
            (outside.modules === "any" || outside.modules.includes(to)) &&
            (!viaPorts || outside.modules === "any");
        if (!allowed) refuse("layer");
        const rootsOnly = outside?.rootsOnly;
        if (
          rootsOnly?.modules.includes(to) &&
          !rootsOnly.roots.includes(relative(file.split("/")[0] as string, file))
        )
          refuse("root-only");
        continue;
      }
      const folder = target.split("/")[0] as string;
      if (outside && folder === file.split("/")[0]) continue;
      if (rule || !outside?.folders.includes(folder)) refuse("layer");
    }
  }
  return findings;
}
