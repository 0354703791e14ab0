import { defineConfig } from "vitest/config";

// The gate's own tests only: Stryker runs them for every mutant of shared/gate/.
export default defineConfig({
  test: {
    include: ["test/unit/gate/**/*.test.ts", "test/unit/cli/check.test.ts"],
    testTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/setup-fast-check.ts"],
  },
});
