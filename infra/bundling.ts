import { basename } from "node:path";
import { type BundlingOptions, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import type { BuildOptions } from "esbuild";

/**
 * How every function is bundled, in one place, so the bundle-load test and the benchmark build exactly what CDK
 * deploys. ESM output needs a `require` for the CommonJS dependencies (mailauth, nodemailer) that call
 * `require("crypto")` and friends: the banner gives them one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __postern_createRequire } from 'node:module'; const require = __postern_createRequire(import.meta.url);";

export const BUNDLE = {
  target: "node24",
  format: "esm",
  mainFields: ["module", "main"],
  minify: true,
  // Powertools and the SDK rely on class names in error handling (`err.name`), which minification would mangle.
  keepNames: true,
  // The SDK is bundled, not taken from the Lambda runtime: versions are the ones the tests ran against, and
  // tree-shaken single-file bundles start faster than the runtime's full SDK (see bench/bundle.ts).
  bundleAwsSdk: true,
} as const;

/** Where the deployment config and its scripts land in the function package (`/var/task`). */
export const TASK_ROOT = "/var/task";

export interface ShippedFiles {
  /** Absolute path of the config file; shipped under its own name. */
  readonly configFile: string;
  /** Script files relative to the config's directory, shipped at the same relative path. */
  readonly scripts: readonly string[];
  /** The config's directory (scripts are resolved against it). */
  readonly configDir: string;
}

/** The environment variable the function reads its config from (shared/config/runtime.ts). */
export function shippedConfigPath(files: ShippedFiles): string {
  return `${TASK_ROOT}/${basename(files.configFile)}`;
}

/** Shell commands that copy the config and its scripts into the bundle directory (after esbuild ran). */
export function copyCommands(files: ShippedFiles, outputDir: string): string[] {
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const cmds = [`cp ${q(files.configFile)} ${q(`${outputDir}/${basename(files.configFile)}`)}`];
  for (const rel of files.scripts) {
    const target = `${outputDir}/${rel}`;
    cmds.push(`mkdir -p "$(dirname ${q(target)})"`, `cp ${q(`${files.configDir}/${rel}`)} ${q(target)}`);
  }
  return cmds;
}

/** NodejsFunction bundling props: the local esbuild (no Docker), ESM, SDK bundled, config copied in. */
export function cdkBundling(files: ShippedFiles): BundlingOptions {
  return {
    forceDockerBundling: false,
    target: BUNDLE.target,
    format: OutputFormat.ESM,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    keepNames: BUNDLE.keepNames,
    banner: ESM_REQUIRE_BANNER,
    bundleAwsSDK: BUNDLE.bundleAwsSdk,
    externalModules: [],
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir, outputDir) => copyCommands(files, outputDir),
    },
  };
}

/**
 * The esbuild JS-API equivalent of `cdkBundling` (CDK drives the esbuild CLI with the same flags). `external`
 * lets the benchmark measure the alternative (SDK from the runtime) for comparison.
 */
export function esbuildOptions(entry: string, outfile: string, external: string[] = []): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: BUNDLE.target,
    format: BUNDLE.format,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    keepNames: BUNDLE.keepNames,
    banner: { js: ESM_REQUIRE_BANNER },
    external,
    logLevel: "warning",
  };
}
