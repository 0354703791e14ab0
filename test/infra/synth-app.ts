import { resolve } from "node:path";
import { buildApp } from "../../infra/build-app.ts";

/**
 * infra/app.ts's app in its own process, for the bundle tests: the same buildApp with esbuild bundling and cdk-nag,
 * without a deploy's refusals, so a fixture's scripted model lets the bundles answer a mail offline (a deploy refuses
 * it: test/infra/deploy-config.test.ts). Bundling runs here, not in a test worker, whose stdio esbuild cannot use.
 * Usage: tsx test/infra/synth-app.ts CONFIG OUTDIR
 */
const [configFile, outdir] = process.argv.slice(2);
if (!configFile || !outdir) throw new Error("usage: tsx test/infra/synth-app.ts CONFIG OUTDIR");
buildApp({
  projectRoot: resolve(import.meta.dirname, "../.."),
  configFile,
  outdir,
  env: { account: "111111111111", region: "eu-west-1" },
}).app.synth();
