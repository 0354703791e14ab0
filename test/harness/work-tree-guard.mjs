// Tests must pass where a user runs them: in a work tree that holds the user's own postern.config.json,
// postern.deploy.json and `.postern/` (a running or stopped `npm start`). No test may read or write those: a test
// that did would pass or fail on what the user has, not on what it sets up. This module makes any file-system call on
// them throw, in the test workers (vitest.config.ts `setupFiles`) and in every Node process a test spawns
// (`NODE_OPTIONS=--import`). Plain JavaScript, so a spawned `node` loads it as is.
// test/unit/harness/work-tree-guard.test.ts proves it fires.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { USER_PATHS } from "./work-tree-paths.mjs";

const INSTALLED = Symbol.for("postern.test.work-tree-guard");
function touches(path) {
  let text;
  if (typeof path === "string") text = path;
  else if (path instanceof URL && path.protocol === "file:") text = fileURLToPath(path);
  else return undefined;
  const abs = resolve(text);
  return USER_PATHS.find((p) => abs === p || abs.startsWith(p + sep));
}

const CALLS = [
  "existsSync",
  "readFileSync",
  "writeFileSync",
  "statSync",
  "lstatSync",
  "accessSync",
  "openSync",
  "mkdirSync",
  "readdirSync",
  "rmSync",
  "copyFileSync",
  "readFile",
  "writeFile",
  "stat",
  "open",
  "mkdir",
  "readdir",
];

if (!globalThis[INSTALLED]) {
  globalThis[INSTALLED] = true;
  for (const name of CALLS) {
    const original = fs[name];
    fs[name] = function guardedFs(path, ...rest) {
      const hit = touches(path);
      if (hit)
        throw new Error(
          `test harness: a test reached ${hit}, the work tree's own local config or stack state (a user's). ` +
            "Give the code under test a temporary directory (cwd, --dir, --config) instead.",
        );
      return original.call(this, path, ...rest);
    };
  }
  for (const name of ["readFile", "writeFile", "stat", "open", "mkdir", "readdir"]) {
    const original = fs.promises[name];
    fs.promises[name] = function guardedFsPromise(path, ...rest) {
      const hit = touches(path);
      if (hit)
        return Promise.reject(
          new Error(
            `test harness: a test reached ${hit}, the work tree's own local config or stack state (a user's). ` +
              "Give the code under test a temporary directory (cwd, --dir, --config) instead.",
          ),
        );
      return original.call(this, path, ...rest);
    };
  }
  syncBuiltinESMExports();
}
