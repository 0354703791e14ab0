import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { DeploymentConfig } from "../shared/config/index.ts";
import { ConfigError, type LoadedConfig, loadConfigFile } from "../shared/config/index.ts";
import { modelFacts } from "../shared/model/index.ts";

/** The config CDK ships: the validated document, the file it came from, and the script files it references. */
export interface SynthConfig {
  readonly loaded: LoadedConfig;
  /** Absolute path of the config file. */
  readonly file: string;
  /** Scripted models' script files, relative to the config directory (copied next to it in each bundle). */
  readonly scripts: readonly string[];
  /** Problems that do not stop a deploy but will bite (printed as synth warnings). */
  readonly warnings: readonly string[];
}

/**
 * The config a deploy reads when `-c config=FILE` names none. Apart from the local stack's `postern.config.json`:
 * a local config holds `.test` domains and scripted or loopback models that must never reach AWS.
 */
export const DEPLOY_CONFIG_FILE = "postern.deploy.json";
export const LOCAL_CONFIG_FILE = "postern.config.json";

/** `postern.deploy.json` in `root`; without it, an error naming the fix (never the local config, never the example). */
export function chooseConfigFile(root: string): string {
  const deploy = join(root, DEPLOY_CONFIG_FILE);
  if (existsSync(deploy)) return deploy;
  throw new ConfigError(deploy, [
    existsSync(join(root, LOCAL_CONFIG_FILE))
      ? `no deploy config: ${LOCAL_CONFIG_FILE} is the local stack's (npm start) and is never deployed; if it is the config you deploy, rename it (\`mv ${LOCAL_CONFIG_FILE} ${DEPLOY_CONFIG_FILE}\`), or pass \`-c config=FILE\``
      : `no deploy config: \`cp postern.config.example.json ${DEPLOY_CONFIG_FILE}\` and edit it (docs/deploy.md, step 2), or pass \`-c config=FILE\``,
  ]);
}

/**
 * Top-level names no DNS delegates (RFC 2606, RFC 6761): no MX can point at such a domain, so SES would never
 * receive its mail, and no recipient could be reached at it.
 */
const RESERVED_TLDS = ["test", "example", "invalid", "localhost"] as const;

/** SES names: letters, digits, `.`, `_`, `-`; start and end alphanumeric; under 64 characters. */
const SES_RULE_SET_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$/;
const SES_CONFIG_SET_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const BEDROCK_MODEL_ID =
  /^(?:arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{0,12}:[a-z-]+\/[\w.:/-]+|[a-z0-9][\w.:-]*)$/;
const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d$/;
const LOOPBACK = /^(?:localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/;

/**
 * Load and validate the deployment config for synth. The schema already rejects duplicate or invalid domains,
 * bad key env-var names and outside APIs marked `internal`; this adds what only matters when deploying to AWS.
 * Every problem is collected, so one synth names them all.
 */
export function loadSynthConfig(path: string, opts: { readonly deploy?: boolean } = {}): SynthConfig {
  const file = resolve(path);
  const loaded = loadConfigFile(file);
  const { problems, warnings, scripts } = deployChecks(loaded.config, loaded.baseDir, opts);
  if (problems.length > 0) throw new ConfigError(file, problems);
  return { loaded, file, scripts, warnings };
}

/**
 * `deploy` (what `npx cdk synth|deploy` sets through infra/app.ts): what only a local config may hold is refused,
 * each named: a reserved domain, a scripted model, a model server on loopback. Without it (tests that synthesize a
 * local config's template) those stay warnings or are shipped as before.
 */
export function deployChecks(
  config: DeploymentConfig,
  baseDir: string,
  opts: { readonly deploy?: boolean } = {},
): { problems: string[]; warnings: string[]; scripts: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  const scripts: string[] = [];
  if (opts.deploy)
    config.domains.forEach((d, i) => {
      const tld = RESERVED_TLDS.find((t) => d === t || d.endsWith(`.${t}`));
      if (tld)
        problems.push(
          `domains.${i}: ${d} is under .${tld}, which no DNS delegates (RFC 6761): SES can never receive its mail; deploy a domain you own (keep .${tld} domains in the local ${LOCAL_CONFIG_FILE})`,
        );
    });
  config.models.forEach((m, i) => {
    const at = `models.${i} (${m.id})`;
    if (m.provider === "scripted" && opts.deploy) {
      problems.push(
        `${at}: a scripted model answers from a file, not a model; deploy a real one (bedrock, anthropic, openai-compatible) and keep scripted models in the local ${LOCAL_CONFIG_FILE}`,
      );
    } else if (m.provider === "scripted") {
      // The script is copied into the bundle at the same path relative to the config; a path outside the
      // config directory would land outside /var/task (or overwrite the bundle's own files).
      const abs = isAbsolute(m.script) ? m.script : resolve(baseDir, m.script);
      const rel = relative(baseDir, abs);
      if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
        problems.push(
          `${at}.script: ${m.script} is outside the config directory; move the script next to it`,
        );
      } else if (!existsSync(abs) || !statSync(abs).isFile()) {
        problems.push(`${at}.script: ${abs} does not exist`);
      } else {
        scripts.push(rel.split(sep).join("/"));
      }
    }
    if ((m.provider === "openai-compatible" || m.provider === "anthropic") && m.apiKeySecret === undefined) {
      // G16: in AWS a key in an env var would sit in plain text in the Lambda configuration.
      if (m.apiKeyEnv !== undefined)
        problems.push(
          `${at}: "apiKeyEnv" cannot be used in AWS (the key would be a plain Lambda environment variable); ` +
            `store the key in Secrets Manager and set "apiKeySecret": "secretsmanager:postern/${m.id}"`,
        );
    }
    if (m.provider === "openai-compatible" && LOOPBACK.test(new URL(m.baseUrl).hostname)) {
      (opts.deploy ? problems : warnings).push(
        opts.deploy
          ? `${at}.baseUrl: ${m.baseUrl} is a loopback address, unreachable from Lambda; deploy a server Lambda can reach, or leave this model to the local ${LOCAL_CONFIG_FILE}`
          : `${at}: ${m.baseUrl} is a loopback address, unreachable from Lambda (fine for npm start)`,
      );
    }
    if (m.provider === "bedrock" || m.provider === "anthropic") {
      // A model the facts table marks old still deploys (an existing account may still call it), but a new
      // account cannot (Bedrock Legacy) or no one can (a retired Claude API model): `postern doctor` asks the
      // service itself and fails it; synth names it early.
      const id = m.provider === "bedrock" ? m.modelId : m.model;
      const facts = modelFacts(m.provider, id);
      if (facts?.status === "old")
        warnings.push(
          `${at}: ${id} is ${facts.name}, ${facts.note ?? "an old model"}; run \`postern doctor\``,
        );
    }
    if (m.provider === "bedrock") {
      if (!BEDROCK_MODEL_ID.test(m.modelId))
        problems.push(
          `${at}.modelId: ${m.modelId} is not a Bedrock model id, inference profile id or ARN (e.g. anthropic.claude-sonnet-4-6 or global.anthropic...)`,
        );
      if (m.region !== undefined && !AWS_REGION.test(m.region))
        problems.push(`${at}.region: ${m.region} is not an AWS region name (e.g. us-east-1)`);
    }
  });
  if (!SES_RULE_SET_NAME.test(config.receiptRuleSet.name))
    problems.push(
      `receiptRuleSet.name: ${config.receiptRuleSet.name} is not a valid SES rule set name (letters, digits, . _ -; under 64 characters)`,
    );
  const cs = config.outbound.configurationSet;
  if (cs !== undefined && !SES_CONFIG_SET_NAME.test(cs))
    problems.push(
      `outbound.configurationSet: ${cs} is not a valid SES configuration set name ([A-Za-z0-9_-], up to 64)`,
    );
  return { problems, warnings, scripts };
}
