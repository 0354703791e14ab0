import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

/**
 * No test asserts wall time: on a shared 2-core machine it fails for reasons that are not the code's. A test injects
 * a clock (fake timers, a `now` option) or watches the timer it expects; durations belong to `npm run bench:*`.
 */
const ROOT = join(import.meta.dirname, "../../..");

it("no test compares a wall-clock reading in an expectation", () => {
  const clock = /expect\([^;]*(performance\.now\(\)|Date\.now\(\)\s*-|process\.hrtime)/;
  const sources = [...walk(join(ROOT, "test"))].filter(
    (f) => f.endsWith(".ts") && !f.endsWith("no-wall-clock.test.ts"),
  );
  expect(sources.length).toBeGreaterThan(100);
  const hits = sources.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .flatMap((line, i) => (clock.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(hits).toEqual([]);
});

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "fixtures") continue;
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
