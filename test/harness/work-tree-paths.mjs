// The work tree's local config, deploy config and local stack state: the user's, never a test's. Apart from the guard
// (work-tree-guard.mjs) so a test can name them without installing it.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const USER_PATHS = ["postern.config.json", "postern.deploy.json", ".postern"].map((n) =>
  resolve(ROOT, n),
);
