import { browserPolicy, findChromium } from "./browser-env.ts";

/**
 * The console project's global setup: when Chromium is missing on a developer's machine, one line at the end of the
 * run says the browser tests were skipped and how to install it (test/console/browser.test.ts fails instead in CI).
 */
export default function setup(): (() => void) | undefined {
  const policy = browserPolicy(process.env, findChromium());
  if (policy.kind !== "skip") return undefined;
  return () => console.warn(`\n\u26a0 ${policy.message}\n`);
}
