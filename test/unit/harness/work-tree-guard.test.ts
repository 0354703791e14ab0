import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { USER_PATHS } from "../../harness/work-tree-paths.mjs";

/**
 * `npm test` must pass in a work tree holding the user's own postern.config.json, postern.deploy.json and `.postern/`:
 * no test may touch them. test/harness/work-tree-guard.mjs enforces it at run time; these tests prove it fires in the
 * workers and in spawned processes, and leaves every other path alone.
 */
const ROOT = join(import.meta.dirname, "../../..");

describe("the work-tree guard of the test harness", () => {
  it("covers the work tree's local config, deploy config and stack state", () => {
    expect(USER_PATHS).toEqual([
      join(ROOT, "postern.config.json"),
      join(ROOT, "postern.deploy.json"),
      join(ROOT, ".postern"),
    ]);
  });

  it("refuses a read, a probe or a write there inside a test, relative or absolute", async () => {
    expect(() => existsSync(join(ROOT, "postern.config.json"))).toThrow(/the work tree's own local config/);
    expect(() => readFileSync(join(ROOT, ".postern", "stack.json"))).toThrow(
      /the work tree's own local config/,
    );
    expect(() => writeFileSync(join(ROOT, "postern.deploy.json"), "{}")).toThrow(/the work tree's own/);
    await expect(readFile(join(ROOT, ".postern/demo.config.json"))).rejects.toThrow(/the work tree's own/);
    if (process.cwd() === ROOT)
      expect(() => existsSync("postern.config.json")).toThrow(/the work tree's own/);
  });

  it("leaves every other path alone: the committed example, a temporary directory", () => {
    expect(existsSync(join(ROOT, "postern.config.example.json"))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "postern-guard-"));
    writeFileSync(join(dir, "postern.config.json"), "{}");
    expect(readFileSync(join(dir, "postern.config.json"), "utf8")).toBe("{}");
  });

  it("fires in a Node process a test spawns (postern start, the CLI, tsx scripts)", () => {
    const script = `require("node:fs").readFileSync(${JSON.stringify(join(ROOT, "postern.config.json"))}); console.log("read")`;
    const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(child.stdout).not.toContain("read");
    expect(child.stderr).toContain("the work tree's own local config");
    expect(child.status).not.toBe(0);
  });
});
