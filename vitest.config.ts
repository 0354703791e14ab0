import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * One `npm test` (`vitest run`) runs every project; each can run alone with `--project <name>`:
 * - `unit`: in memory, no emulator, no network (the gate, mail, the agent and intake cores on test/fakes, the
 *   fakes' contract suites). Seconds: `npx vitest run --project unit`.
 * - `integration`: the emulators (dynalite, fauxqs) and the local stack, including the same contract suites run
 *   against the real adapters (test/integration/adapter-contracts.test.ts).
 * - `infra`: CDK synth, cdk-nag, cfn-lint, the IAM simulations against the synthesized template.
 * - `console`: the console's tests (local stack, a browser): kept apart so they can grow their own setup.
 * Options set here apply to every project (`extends: true`).
 */
/**
 * No test may reach the local stack's default ports, where a developer's `npm start` may be running: this guard makes
 * such a listen or connect throw, in the workers (`setupFiles`) and in every Node process a test spawns
 * (`NODE_OPTIONS`). test/unit/harness/stack-ports.test.ts proves it fires.
 */
const STACK_PORTS_GUARD = "test/harness/stack-ports-guard.mjs";
/**
 * No test may touch the work tree's own postern.config.json, postern.deploy.json or .postern/ (a user's config and
 * stack state): this guard makes such a file-system call throw, in the workers and in spawned Node processes.
 * test/unit/harness/work-tree-guard.test.ts proves it fires.
 */
const WORK_TREE_GUARD = "test/harness/work-tree-guard.mjs";
const guardImport = [STACK_PORTS_GUARD, WORK_TREE_GUARD]
  .map((f) => `--import=${pathToFileURL(join(import.meta.dirname, f)).href}`)
  .join(" ");

/**
 * `npm test` measures coverage (`vitest run --coverage`; a single file run with `npx vitest run <file>` does not):
 * one line per module is printed (test/harness/module-coverage.mjs) and vitest's own thresholds fail the run when a
 * core module falls below its floor. The floors are what the suite reached when they were set, rounded down
 * (README, "Tests"); lower one only with a reason in the commit. Code that runs only in a spawned process (the
 * Lambda entry files under functions/, the CLI binary) is not seen by v8 here and is left out.
 */
export const COVERAGE_FLOORS = {
  "shared/gate/**": { lines: 99, branches: 95, functions: 100 },
  "shared/intake/**": { lines: 99, branches: 90, functions: 100 },
  "shared/agent/**": { lines: 98, branches: 89, functions: 98 },
  "shared/outbound/**": { lines: 95, branches: 88, functions: 94 },
  "shared/mcp/**": { lines: 92, branches: 75, functions: 87 },
  "shared/webhooks/**": { lines: 97, branches: 83, functions: 95 },
} as const;

const project = (name: string, dir: string) => ({
  extends: true,
  test: { name, include: [`test/${dir}/**/*.test.ts`] },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Vitest's default is one worker fewer than the cores: on the 2-core machines this project is built and checked
    // on, that ran one file at a time, and the integration and console files spend much of their time waiting on
    // emulators, child processes and a browser. Two files at a time on two cores.
    maxWorkers: 2,
    // A worker runs its files one after another in one module graph instead of re-importing the SDK, mailauth,
    // aws-cdk-lib and the emulators for each file. Safe because no test mocks modules or stubs env and globals
    // (test/unit/harness/shared-workers.test.ts refuses them), the one cwd change and env var are restored by their
    // files, the port guard still fires this way (test/unit/harness), and each file starts its own stack.
    isolate: false,
    pool: "forks",
    setupFiles: [STACK_PORTS_GUARD, WORK_TREE_GUARD, "test/setup-fast-check.ts"],
    env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, guardImport].filter(Boolean).join(" ") },
    coverage: {
      provider: "v8",
      include: ["shared/**/*.ts", "cli/**/*.ts", "console/**/*.ts"],
      reporter: [
        [join(import.meta.dirname, "test/harness/module-coverage.mjs"), {}],
        ["json-summary", {}],
      ],
      reportsDirectory: "coverage",
      thresholds: COVERAGE_FLOORS,
    },
    projects: [
      // In memory and independent (no env, cwd or module mocks: test/unit/harness checks the guard still fires
      // with isolation off): threads without per-file isolation import shared, the SDK, mailauth and zod once per
      // worker instead of once per file, which was most of this project's time.
      {
        ...project("unit", "unit"),
        test: { ...project("unit", "unit").test, pool: "threads" },
      },
      project("integration", "integration"),
      // cfn-lint missing on a developer's machine: one line at the end of the run says so (fails in CI instead)
      {
        ...project("infra", "infra"),
        test: {
          ...project("infra", "infra").test,
          globalSetup: ["test/infra/cfn-lint-setup.ts"],
          // Synthesis is CPU-bound and spawns its own processes for esbuild and cfn-lint: threads share one
          // aws-cdk-lib (the project's CPU time fell from 172 s to 97 s).
          pool: "threads",
        },
      },
      // Chromium missing on a developer's machine: one line at the end of the run says so (fails in CI instead)
      {
        ...project("console", "console"),
        test: { ...project("console", "console").test, globalSetup: ["test/console/browser-setup.ts"] },
      },
    ],
  },
});
