import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** How to get the browser the console's browser tests drive (said by the test that reports a missing one). */
export const INSTALL_HINT =
  "install Debian's Chromium (`apt-get install -y chromium`, what .ci/run does) or set POSTERN_CHROMIUM=/path/to/chromium";

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

/** POSTERN_CHROMIUM, else whatever `which chromium` (or chromium-browser) prints; undefined when there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.POSTERN_CHROMIUM) return existsSync(env.POSTERN_CHROMIUM) ? env.POSTERN_CHROMIUM : undefined;
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      const path = execFileSync("which", [name], { encoding: "utf8" }).trim();
      if (path) return path;
    } catch {
      // not on the PATH: try the next name
    }
  }
  return undefined;
}
