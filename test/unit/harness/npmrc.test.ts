import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

/**
 * A clean install prints no engine warnings where the machine's own Node is older: npm runs on that Node, while every
 * npm script runs on the `node` devDependency's Node 24, so EBADENGINE is noise (and engine-strict would fail it).
 */
it(".npmrc keeps npm's warnings (EBADENGINE) out of `npm ci` and leaves engine-strict off", () => {
  const settings = readFileSync(join(import.meta.dirname, "../../../.npmrc"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !/^\s*[#;]/.test(l))
    .map((l) => l.replace(/\s/g, ""));
  expect(settings).toContain("loglevel=error");
  expect(settings).not.toContain("engine-strict=true");
});
