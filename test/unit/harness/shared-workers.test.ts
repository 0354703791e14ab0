import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

/**
 * vitest.config.ts runs a worker's files in one module graph (`isolate: false`), so nothing a test file changes
 * may outlive it: module mocks and stubbed env or globals would leak into the next file in the same worker, and
 * a test would pass or fail by the order files happen to run in. Those APIs are refused outright; a test that needs
 * an env var or a cwd sets and restores it itself.
 */
const ROOT = join(import.meta.dirname, "../../..");
const LEAKS = /\bvi\.(mock|doMock|unmock|stubEnv|stubGlobal|resetModules)\(/;

it("no test mocks modules or stubs env and globals (they would leak between files that share a worker)", () => {
  const self = relative(ROOT, import.meta.filename);
  const sources = [...walk(join(ROOT, "test"))].filter(
    (f) => f.endsWith(".ts") && relative(ROOT, f) !== self,
  );
  expect(sources.length).toBeGreaterThan(100);
  const hits = sources.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .flatMap((line, i) => (LEAKS.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(hits).toEqual([]);
});

it("the check sees a module mock", () => {
  expect(LEAKS.test('vi.mock("../../shared/store/index.ts", () => ({}));')).toBe(true);
  expect(LEAKS.test("vi.stubEnv('AWS_REGION', 'x')")).toBe(true);
  expect(LEAKS.test("vi.fn()")).toBe(false);
});

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "fixtures" || name === "node_modules") continue;
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
