import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../shared/config/index.ts";
import { buildApp } from "./build-app.ts";

/**
 * `npx cdk synth|deploy`: Postern's stack in the account and region of the usual AWS environment. Context:
 * `-c agentStepConcurrency=N` bounds concurrent agent steps; `-c config=path` picks the config (default
 * postern.deploy.json); `-c stackName=NAME` names the stack (default Postern). A deploy: what only a local config
 * may hold is refused.
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };

try {
  const { app } = buildApp({
    projectRoot,
    deploy: true,
    ...(env.account || env.region ? { env } : {}),
  });
  app.synth();
} catch (err) {
  if (err instanceof ConfigError) {
    // Synth stops here with the config's own problems, one per line, naming the field to fix.
    console.error(`postern: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
