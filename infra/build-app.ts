import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { ConfigError } from "../shared/config/index.ts";
import { profileRegionProblem } from "./constructs/model-access.ts";
import { consoleRegionProblem } from "./function-urls.ts";
import { PosternStack } from "./postern-stack.ts";
import { requireSesReceivingRegion, sesReceivingProblem } from "./ses-receiving.ts";
import { chooseConfigFile, loadSynthConfig } from "./synth-config.ts";

export interface BuildAppOptions {
  /** Repository root. */
  readonly projectRoot: string;
  /** Config file; default `-c config=FILE`, else postern.deploy.json in projectRoot (infra/synth-config.ts). */
  readonly configFile?: string;
  /**
   * A deploy (`npx cdk synth|deploy`, infra/app.ts): refuse what only a local config may hold (`.test` domains,
   * scripted and loopback models), naming each. Tests that synthesize a local config's template leave it off.
   */
  readonly deploy?: boolean;
  /** Cloud assembly directory; default CDK's (cdk.out, or the CLI's CDK_OUTDIR). */
  readonly outdir?: string;
  /** Run esbuild for the functions. Tests that only inspect the template pass false (`aws:cdk:bundling-stacks`). */
  readonly bundle?: boolean;
  /** Run cdk-nag's AwsSolutionsChecks at synth. @default true */
  readonly nag?: boolean;
  readonly stackName?: string;
  readonly env?: { readonly account?: string; readonly region?: string };
  readonly agentStepConcurrency?: number;
  /** The console function's reserved concurrency (`-c consoleReservedConcurrency=N`, 0 = none); see PosternStackProps. */
  readonly consoleReservedConcurrency?: number;
  /** Reserve agent-step's concurrency too (`-c reserveAgentStepConcurrency=true`); see PosternStackProps. */
  readonly reserveAgentStepConcurrency?: boolean;
}

/**
 * The `context` of the project's cdk.json: the feature flags (`cdk init`'s recommended set) among it. The CLI
 * passes it to `infra/app.ts` itself; passing it here too makes a test's `buildApp` synthesize exactly what
 * `npx cdk synth` deploys, with cdk.json the one place the flags are written.
 */
export function cdkJsonContext(projectRoot: string): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(projectRoot, "cdk.json"), "utf8")) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

/**
 * The CDK app: the target region and the config validated first (either invalid throws before any construct
 * exists), one stack.
 */
export function buildApp(opts: BuildAppOptions): { app: App; stack: PosternStack } {
  const regionProblem = opts.env?.region ? sesReceivingProblem(opts.env.region) : undefined;
  if (regionProblem) throw new ConfigError("the target AWS environment", [regionProblem]);
  const app = new App({
    ...(opts.outdir ? { outdir: opts.outdir } : {}),
    // Context given on the command line (`-c`, the CLI's copy of cdk.json) still overrides these defaults.
    context: {
      ...cdkJsonContext(opts.projectRoot),
      ...(opts.bundle === false ? { "aws:cdk:bundling-stacks": [] } : {}),
    },
  });
  // `-c config=FILE` and `-c agentStepConcurrency=N` on the cdk command line.
  const ctxConfig = app.node.tryGetContext("config") as string | undefined;
  const ctxConcurrency = app.node.tryGetContext("agentStepConcurrency") as string | number | undefined;
  const config = loadSynthConfig(
    opts.configFile ?? (ctxConfig ? resolve(ctxConfig) : chooseConfigFile(opts.projectRoot)),
    { deploy: opts.deploy === true },
  );
  // Before any construct: a console where Lambda has no function URLs would fail mid-deploy (infra/function-urls.ts).
  const consoleProblem =
    config.loaded.config.console.enabled && opts.env?.region
      ? consoleRegionProblem(opts.env.region)
      : undefined;
  if (consoleProblem) throw new ConfigError(config.file, [consoleProblem]);
  const profileProblem = opts.env?.region
    ? profileRegionProblem(config.loaded.config.models, opts.env.region)
    : null;
  if (profileProblem) throw new ConfigError("the model catalog for the target region", [profileProblem]);
  const ctxConsoleReserved = app.node.tryGetContext("consoleReservedConcurrency") as
    | string
    | number
    | undefined;
  const consoleReserved =
    opts.consoleReservedConcurrency ??
    (ctxConsoleReserved !== undefined ? Number(ctxConsoleReserved) : undefined);
  const concurrency =
    opts.agentStepConcurrency ?? (ctxConcurrency !== undefined ? Number(ctxConcurrency) : undefined);
  // `-c stackName=PosternStaging`: a second stack beside the first (staging and production, docs/deploy.md).
  const ctxStackName = app.node.tryGetContext("stackName") as string | undefined;
  const stack = new PosternStack(app, opts.stackName ?? ctxStackName ?? "Postern", {
    config,
    projectRoot: opts.projectRoot,
    description: "Postern: email addresses for AI agents, behind gates that code enforces",
    ...(opts.env ? { env: opts.env } : {}),
    ...(concurrency !== undefined ? { agentStepConcurrency: concurrency } : {}),
    ...(consoleReserved !== undefined ? { consoleReservedConcurrency: consoleReserved } : {}),
    reserveAgentStepConcurrency:
      opts.reserveAgentStepConcurrency ??
      String(app.node.tryGetContext("reserveAgentStepConcurrency")) === "true",
  });
  requireSesReceivingRegion(stack);
  if (opts.nag !== false) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
