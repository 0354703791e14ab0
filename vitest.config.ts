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
const project = (name: string, dir: string) => ({
  extends: true,
  test: { name, include: [`test/${dir}/**/*.test.ts`] },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    setupFiles: ["test/setup-fast-check.ts"],
    projects: [
      project("unit", "unit"),
      project("integration", "integration"),
      project("infra", "infra"),
      project("console", "console"),
    ],
  },
});
