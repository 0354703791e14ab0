import { existsSync } from "node:fs";
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import type { DoctorOptions } from "./doctor-actions.ts";

const EXAMPLE_CONFIG = "postern.config.example.json";
/** What a deploy reads (infra/synth-config.ts): the AWS doctor checks the same file. */
const DEPLOY_CONFIG = "postern.deploy.json";

/** agent-step's concurrency when neither the option nor the resources file says (PosternStack's default). */
export const DEFAULT_AGENT_STEP_CONCURRENCY = 10;

const count = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 2 || n > 1000)
    throw new InvalidArgumentError("must be a whole number 2-1000");
  return n;
};

/** `postern doctor`: before the first deploy, what the account needs; after it, whether the stack can take mail. */
export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .summary("check an account before the first deploy, and a deployed stack after it")
    .description(
      "Checks with your AWS credentials, read-only, and prints each finding with its fix (docs/deploy.md).\n\n" +
        "Always: Lambda concurrency quota against agent-step's concurrency (and its reservation); SES sending and production " +
        "access (sandbox); each Bedrock model of the catalog (exists in its region, ACTIVE in Bedrock's lifecycle, " +
        "invoked by inference profile where Bedrock requires one, account access); each Claude API model (the " +
        "Models API still serves it, asked with the key in your environment); the active SES receipt rule set against receiptRuleSet; each " +
        "domain's SES identity and MX record; before the deploy, that the names the stack creates are free " +
        "(identities, configuration set, receipt rules).\n\n" +
        "Always, too: Bedrock quotas of each model (Service Quotas), each model key secret exists (Secrets Manager / " +
        "SSM metadata, never the value), DMARC on each domain or its parent, and recent SES rejections and " +
        "suppressed addresses.\n\n" +
        "With --resources (the stack's PosternResources output): Postern's receipt rule per domain, DKIM and MAIL " +
        "FROM status, every table, every dead-letter queue empty, each queue trigger and the scheduler tick enabled, " +
        "a confirmed alarm subscription, both topics KMS-encrypted, the outbound role's right to send and agent-step's " +
        "right to invoke the catalog's models and read their keys (IAM policy simulation), and with the console its " +
        "users (MFA required) and its reserved concurrency.\n\nWithout credentials it prints one line saying so. " +
        "Exit code 1 when a check fails.\n\nLocally (--local, or with no --region, --resources, AWS_REGION or " +
        "AWS_DEFAULT_REGION where a local stack's state directory exists): no AWS call. The local stack runs, and " +
        "runs the config on disk (else: restart `npm start`); each agent's domain is registered and its model in the " +
        "catalog; each model answers (a one-token call, or its script file exists); each MCP server lists its tools; " +
        "each webhook endpoint answers, and one on this machine has the loopback switch on.",
    )
    .option("--local", "check the local stack (`npm start`) and its config instead of AWS")
    .option("--dir <dir>", "the local stack's state directory", ".postern")
    .option(
      "--resources <file>",
      "the stack's PosternResources output saved as JSON (omit before the first deploy)",
    )
    // The default is chosen when the command runs, not here: the help (and docs/cli.md) reads the same anywhere.
    .option(
      "--config <file>",
      `deployment config (default: AWS ${DEPLOY_CONFIG}, else ${EXAMPLE_CONFIG}; locally postern.config.json, else the demo's)`,
    )
    .option(
      "--region <region>",
      "AWS region (default: AWS_REGION, AWS_DEFAULT_REGION, then the resources file)",
    )
    .option(
      "--agent-step-concurrency <n>",
      `agent-step's concurrency as deployed with \`-c agentStepConcurrency=N\` (default: the resources file's reservation, else ${DEFAULT_AGENT_STEP_CONCURRENCY})`,
      count,
    )
    .option(
      "--reserve-agent-step-concurrency",
      "the deploy reserves it (`-c reserveAgentStepConcurrency=true`; default: as the resources file says)",
    )
    .option("--json", "print the findings as JSON")
    .action(async (o: Omit<DoctorOptions, "config"> & { config?: string; local?: boolean; dir: string }) => {
      if (isLocal(o, process.env)) {
        const { localDoctor } = await import("./doctor-actions.ts");
        await localDoctor({ dir: o.dir, ...(o.config ? { config: o.config } : {}), json: o.json === true });
        return;
      }
      const { doctor } = await import("./doctor-actions.ts");
      const config = o.config ?? (existsSync(DEPLOY_CONFIG) ? DEPLOY_CONFIG : EXAMPLE_CONFIG);
      await doctor(
        { ...o, config },
        {
          exampleConfig: EXAMPLE_CONFIG,
          deployConfig: DEPLOY_CONFIG,
          concurrency: DEFAULT_AGENT_STEP_CONCURRENCY,
        },
      );
    });
}

/**
 * The doctor checks this machine's stack with `--local`, or when nothing names AWS (no --region, --resources,
 * AWS_REGION or AWS_DEFAULT_REGION) and a local stack's state directory is here: the AWS checks would only say
 * "set AWS_REGION", then fail every check on credentials.
 */
export function isLocal(
  o: {
    readonly local?: boolean;
    readonly region?: string;
    readonly resources?: string;
    readonly dir: string;
  },
  env: NodeJS.ProcessEnv,
): boolean {
  if (o.local) return true;
  if (o.region || o.resources || env.AWS_REGION || env.AWS_DEFAULT_REGION) return false;
  return existsSync(o.dir);
}
