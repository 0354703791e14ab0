/**
 * The templates docs/deploy.md's teardown table is rendered from (infra/retained.ts): three deployment shapes, as the
 * tests synthesize them. `npm run docs:teardown` (infra/write-teardown-docs.ts) writes the table.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "./build-app.ts";
import { TEARDOWN_BEGIN, TEARDOWN_END, type TemplateLike } from "./retained.ts";

export const TEARDOWN_SHAPES = [
  { name: "example config (`existing` mode)", config: "postern.config.example.json", region: "us-east-1" },
  { name: "`create` mode", config: "test/infra/fixtures/create-mode.config.json", region: "eu-west-1" },
  { name: "with the console", config: "test/infra/fixtures/console.config.json", region: "eu-west-1" },
] as const;

export function synthShapes(root: string): { name: string; template: TemplateLike }[] {
  const dir = mkdtempSync(join(tmpdir(), "postern-teardown-"));
  try {
    return TEARDOWN_SHAPES.map((s, i) => {
      const { app, stack } = buildApp({
        projectRoot: root,
        configFile: join(root, s.config),
        outdir: join(dir, String(i)),
        bundle: false,
        nag: false,
        env: { account: "111111111111", region: s.region },
      });
      return { name: s.name, template: app.synth().getStackByName(stack.stackName).template as TemplateLike };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The generated block as `doc` has it, or null without its markers. */
export function teardownBlock(doc: string): string | null {
  const a = doc.indexOf(TEARDOWN_BEGIN);
  const b = doc.indexOf(TEARDOWN_END);
  return a < 0 || b < a ? null : doc.slice(a, b + TEARDOWN_END.length);
}
