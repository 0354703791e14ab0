import { resolve } from "node:path";
import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { PosternStack } from "./postern-stack.ts";
import { chooseConfigFile, loadSynthConfig } from "./synth-config.ts";

export interface BuildAppOptions {
  /** Repository root. */
  readonly projectRoot: string;
  /** Config file; default postern.config.json, else postern.config.example.json, in projectRoot. */
  readonly configFile?: string;
  /** Cloud assembly directory; default CDK's (cdk.out, or the CLI's CDK_OUTDIR). */
  readonly outdir?: string;
  /** Run esbuild for the functions. Tests that only inspect the template pass false (`aws:cdk:bundling-stacks`). */
  readonly bundle?: boolean;
  /** Run cdk-nag's AwsSolutionsChecks at synth. @default true */
  readonly nag?: boolean;
  readonly stackName?: string;
  readonly env?: { readonly account?: string; readonly region?: string };
  readonly agentStepConcurrency?: number;
}

/** The CDK app: the config validated first (an invalid one throws before any construct exists), one stack. */
export function buildApp(opts: BuildAppOptions): { app: App; stack: PosternStack } {
  const app = new App({
    ...(opts.outdir ? { outdir: opts.outdir } : {}),
    ...(opts.bundle === false ? { context: { "aws:cdk:bundling-stacks": [] } } : {}),
  });
  // `-c config=FILE` and `-c agentStepConcurrency=N` on the cdk command line.
  const ctxConfig = app.node.tryGetContext("config") as string | undefined;
  const ctxConcurrency = app.node.tryGetContext("agentStepConcurrency") as string | number | undefined;
  const config = loadSynthConfig(
    opts.configFile ?? (ctxConfig ? resolve(ctxConfig) : chooseConfigFile(opts.projectRoot)),
  );
  const concurrency =
    opts.agentStepConcurrency ?? (ctxConcurrency !== undefined ? Number(ctxConcurrency) : undefined);
  const stack = new PosternStack(app, opts.stackName ?? "Postern", {
    config,
    projectRoot: opts.projectRoot,
    description: "Postern: email addresses for AI agents, behind gates that code enforces",
    ...(opts.env ? { env: opts.env } : {}),
    ...(concurrency !== undefined ? { agentStepConcurrency: concurrency } : {}),
  });
  if (opts.nag !== false) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
