import { existsSync } from "node:fs";
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import type { DoctorOptions } from "./doctor-actions.ts";

const EXAMPLE_CONFIG = "postern.config.example.json";

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
        "Exit code 1 when a check fails.",
    )
    .option(
      "--resources <file>",
      "the stack's PosternResources output saved as JSON (omit before the first deploy)",
    )
    // The default is chosen when the command runs, not here: the help (and docs/cli.md) reads the same anywhere.
    .option("--config <file>", `deployment config (default: postern.config.json, else ${EXAMPLE_CONFIG})`)
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
    .action(async (o: Omit<DoctorOptions, "config"> & { config?: string }) => {
      const { doctor } = await import("./doctor-actions.ts");
      const config = o.config ?? (existsSync("postern.config.json") ? "postern.config.json" : EXAMPLE_CONFIG);
      await doctor(
        { ...o, config },
        { exampleConfig: EXAMPLE_CONFIG, concurrency: DEFAULT_AGENT_STEP_CONCURRENCY },
      );
    });
}
