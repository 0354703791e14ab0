import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** How to get the browser the console's browser tests drive (said by the test that reports a missing one). */
export const INSTALL_HINT =
  "install Debian's Chromium (`apt-get install -y chromium`, what .ci/run does) or set POSTERN_CHROMIUM=/path/to/chromium";

/**
 * Whether the console's browser tests run. A developer's machine may have no Chromium: there every other test runs
 * and one line at the end of the run says the browser tests were skipped and how to install it (as for cfn-lint).
 * CI must not pass without them: with `CI` set (as `.ci/run` sets it) or POSTERN_REQUIRE_BROWSER=1, a missing
 * Chromium fails.
 */
export type BrowserPolicy =
  | { readonly kind: "run"; readonly executablePath: string }
  | { readonly kind: "skip"; readonly message: string }
  | { readonly kind: "fail"; readonly message: string };

const truthy = (v: string | undefined) =>
  v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";

export function browserPolicy(env: NodeJS.ProcessEnv, executablePath: string | undefined): BrowserPolicy {
  if (executablePath) return { kind: "run", executablePath };
  if (truthy(env.CI) || truthy(env.POSTERN_REQUIRE_BROWSER))
    return {
      kind: "fail",
      message: `no Chromium found, and CI requires the console's browser tests: ${INSTALL_HINT}, then run the tests again.`,
    };
  return {
    kind: "skip",
    message: `no Chromium found: the console's browser tests were skipped (every other test ran). To run them, ${INSTALL_HINT}; CI requires them.`,
  };
}

/** The flags Debian's Chromium needs here: headless, as root in a container, no network of its own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** POSTERN_CHROMIUM, else the first `chromium` (or `chromium-browser`) on the PATH; undefined when there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.POSTERN_CHROMIUM) return existsSync(env.POSTERN_CHROMIUM) ? env.POSTERN_CHROMIUM : undefined;
  for (const name of ["chromium", "chromium-browser"])
    for (const dir of (env.PATH ?? "").split(delimiter)) {
      const path = join(dir || ".", name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {
        // not here: try the next directory
      }
    }
  return undefined;
}
