import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { browserPolicy, findChromium } from "../../console/browser-env.ts";

/** Chromium: optional on a developer's machine (reported), required in CI (fails), and .ci/run requires it. */
const ROOT = join(import.meta.dirname, "../../..");

describe("whether the console's browser tests run", () => {
  it("run wherever a Chromium is found", () => {
    expect(browserPolicy({}, "/usr/bin/chromium")).toEqual({
      kind: "run",
      executablePath: "/usr/bin/chromium",
    });
    expect(browserPolicy({ CI: "true" }, "/usr/bin/chromium").kind).toBe("run");
  });

  it("are reported as skipped on a developer's machine without one, saying how to install it", () => {
    for (const env of [{}, { CI: "" }, { CI: "false" }, { CI: "0" }]) {
      const policy = browserPolicy(env, undefined);
      expect(policy.kind).toBe("skip");
      expect("message" in policy && policy.message).toMatch(/skipped.*apt-get install -y chromium/);
    }
  });

  it("fail without one in CI, or wherever POSTERN_REQUIRE_BROWSER is set", () => {
    for (const env of [{ CI: "true" }, { CI: "1" }, { POSTERN_REQUIRE_BROWSER: "1" }]) {
      const policy = browserPolicy(env, undefined);
      expect(policy.kind).toBe("fail");
      expect("message" in policy && policy.message).toContain("apt-get install -y chromium");
    }
  });

  it("finds no Chromium on an empty PATH (and a POSTERN_CHROMIUM that does not exist is none)", () => {
    expect(findChromium({ PATH: "" })).toBeUndefined();
    expect(findChromium({ POSTERN_CHROMIUM: join(ROOT, "no-such-chromium") })).toBeUndefined();
  });

  it("are required by .ci/run, which installs Chromium before the tests and sets CI", () => {
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
    expect(ci).toMatch(/apt-get install -y -qq chromium/);
    expect(ci.indexOf("apt-get install -y -qq chromium")).toBeLessThan(ci.indexOf("npm test"));
    expect(ci).toMatch(/export CI="\$\{CI:-true\}".*POSTERN_REQUIRE_BROWSER=1/);
  });
});
