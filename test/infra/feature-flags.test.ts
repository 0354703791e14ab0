import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { FeatureFlags } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { buildApp, cdkJsonContext } from "../../infra/build-app.ts";
import { FIXTURES, ROOT } from "./synth.ts";

// cdk.json is the one place CDK's feature flags are written: the CLI hands its context to infra/app.ts, and
// buildApp (what every infra test synthesizes through) reads the same file.
const cdkJson = JSON.parse(readFileSync(join(ROOT, "cdk.json"), "utf8")) as Record<string, unknown>;
const recommended = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve("aws-cdk-lib/recommended-feature-flags.json"), "utf8"),
) as Record<string, unknown>;

describe("CDK feature flags", () => {
  it("cdk.json sets every flag the installed aws-cdk-lib recommends, at its recommended value", () => {
    // After an aws-cdk-lib upgrade this names the new flags: add them (what `cdk init` writes) and review what
    // they change in the snapshot; flags never change a template silently.
    const context = cdkJsonContext(ROOT);
    const missing = Object.entries(recommended).filter(([flag, value]) => !equal(context[flag], value));
    expect(missing.map(([flag, value]) => `"${flag}": ${JSON.stringify(value)}`)).toEqual([]);
  });

  it("cdk.json keeps the CLI quiet and unreported", () => {
    expect(cdkJson.notices).toBe(false);
    expect(cdkJson.versionReporting).toBe(false);
    expect(cdkJsonContext(ROOT)["cli-telemetry"]).toBe(false);
  });

  it("the app the tests build runs with them (what they check is what `npx cdk synth` deploys)", () => {
    const { stack } = buildApp({
      projectRoot: ROOT,
      configFile: join(FIXTURES, "existing-mode.config.json"),
      bundle: false,
      nag: false,
    });
    for (const [flag, value] of Object.entries(recommended))
      expect(stack.node.tryGetContext(flag)).toEqual(value);
    expect(FeatureFlags.of(stack).isEnabled("@aws-cdk/aws-iam:minimizePolicies")).toBe(true);
  });
});

const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
