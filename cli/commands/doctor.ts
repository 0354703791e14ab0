import { promises as dns } from "node:dns";
import { existsSync } from "node:fs";
import { DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetEmailIdentityCommand, SESv2Client } from "@aws-sdk/client-sesv2";
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { Command } from "commander";
import { loadConfigFile } from "../../shared/config/load.ts";
import type { Resources } from "../../shared/config/resources.ts";
import type { DeploymentConfig } from "../../shared/config/schema.ts";
import { PREFIXES, TABLE_KEYS } from "../../shared/store/tables.ts";

/** One line of the report. `skipped`: the check could not run here (it says what would make it run). */
export interface DoctorCheck {
  readonly check: string;
  readonly status: "ok" | "fail" | "warn" | "skipped";
  readonly detail: string;
}

/** A receipt rule as SES describes it (only what the doctor reads). */
export interface ReceiptRuleView {
  readonly name: string;
  readonly enabled: boolean;
  readonly recipients: readonly string[];
  readonly s3Prefixes: readonly string[];
}

/** The SDK calls the doctor makes, injectable so a test hands in fakes that record what was asked. */
export interface DoctorPorts {
  readonly ses: Pick<SESv2Client, "send">;
  readonly dynamo: Pick<DynamoDBClient, "send">;
  readonly sqs: Pick<SQSClient, "send">;
  readonly resolveMx: (domain: string) => Promise<{ exchange: string; priority: number }[]>;
  /** The active rule set, or null when none is active; "unavailable" when it cannot be read here. */
  readonly activeRuleSet: () => Promise<{ name: string; rules: ReceiptRuleView[] } | null | "unavailable">;
}

const errName = (err: unknown): string => (err instanceof Error ? err.name : String(err));

/** Run every check; never throws for an AWS answer (a failed call is a failed check naming the error). */
export async function runDoctor(
  config: DeploymentConfig,
  resources: Resources,
  ports: DoctorPorts,
): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const push = (check: string, status: DoctorCheck["status"], detail: string) =>
    out.push({ check, status, detail });
  const inboundHost = `inbound-smtp.${resources.region}.amazonaws.com`;

  for (const domain of config.domains) {
    try {
      const id = await ports.ses.send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
      const dkim = id.DkimAttributes?.Status ?? "unknown";
      if (id.VerifiedForSendingStatus && dkim === "SUCCESS")
        push(`identity ${domain}`, "ok", "verified, DKIM SUCCESS");
      else
        push(
          `identity ${domain}`,
          "fail",
          `not verified for sending (DKIM ${dkim}): add the DKIM CNAMEs from the stack outputs`,
        );
      const mailFrom = id.MailFromAttributes?.MailFromDomainStatus;
      if (mailFrom && mailFrom !== "SUCCESS")
        push(`mail-from ${domain}`, "warn", `MAIL FROM domain ${mailFrom}: add its MX and SPF records`);
    } catch (err) {
      push(`identity ${domain}`, "fail", `GetEmailIdentity failed (${errName(err)})`);
    }
    try {
      const mx = (await ports.resolveMx(domain)).sort((a, b) => a.priority - b.priority);
      const norm = (h: string) => h.toLowerCase().replace(/\.$/, "");
      const ours = mx.filter((r) => norm(r.exchange) === inboundHost);
      if (ours.length === 0) push(`mx ${domain}`, "fail", `no MX record points at ${inboundHost}`);
      else if (mx[0] && norm(mx[0].exchange) !== inboundHost)
        push(
          `mx ${domain}`,
          "warn",
          `${mx[0].exchange} has a lower preference than SES: mail goes there first`,
        );
      else push(`mx ${domain}`, "ok", inboundHost);
    } catch (err) {
      push(
        `mx ${domain}`,
        "fail",
        `MX lookup failed (${(err as NodeJS.ErrnoException).code ?? errName(err)})`,
      );
    }
  }

  try {
    const active = await ports.activeRuleSet();
    if (active === "unavailable")
      push(
        "receipt rules",
        "skipped",
        "install @aws-sdk/client-ses, or run `aws ses describe-active-receipt-rule-set`",
      );
    else if (active === null)
      push("receipt rules", "fail", "no receipt rule set is active in this region: SES drops all mail");
    else if (active.name !== config.receiptRuleSet.name)
      push(
        "receipt rules",
        "fail",
        `active rule set is ${active.name}, Postern's rules are in ${config.receiptRuleSet.name}`,
      );
    else
      for (const domain of config.domains) {
        const rule = active.rules.find(
          (r) => r.enabled && r.recipients.includes(domain) && r.s3Prefixes.includes(PREFIXES.inbound),
        );
        if (rule) push(`receipt rule ${domain}`, "ok", `${rule.name} in ${active.name} (active)`);
        else
          push(
            `receipt rule ${domain}`,
            "fail",
            `no enabled rule in ${active.name} stores mail for ${domain} under inbound/`,
          );
      }
  } catch (err) {
    push("receipt rules", "fail", `DescribeActiveReceiptRuleSet failed (${errName(err)})`);
  }

  for (const key of TABLE_KEYS) {
    const name = resources.tables[key];
    try {
      const t = await ports.dynamo.send(new DescribeTableCommand({ TableName: name }));
      const status = t.Table?.TableStatus ?? "unknown";
      push(`table ${key}`, status === "ACTIVE" ? "ok" : "warn", `${name} ${status}`);
    } catch (err) {
      push(`table ${key}`, "fail", `${name}: DescribeTable failed (${errName(err)})`);
    }
  }

  for (const [key, url] of Object.entries(resources.queues)) {
    try {
      const attrs = await ports.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["RedrivePolicy"] }),
      );
      const arn = (JSON.parse(attrs.Attributes?.RedrivePolicy ?? "{}") as { deadLetterTargetArn?: string })
        .deadLetterTargetArn;
      if (!arn) {
        push(`dlq ${key}`, "fail", "the queue has no dead-letter queue");
        continue;
      }
      const [, , , , owner, dlqName] = arn.split(":");
      const { QueueUrl } = await ports.sqs.send(
        new GetQueueUrlCommand({ QueueName: dlqName, QueueOwnerAWSAccountId: owner }),
      );
      const depth = await ports.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }),
      );
      const n = Number(depth.Attributes?.ApproximateNumberOfMessages ?? "0");
      if (n === 0) push(`dlq ${key}`, "ok", "empty");
      else
        push(
          `dlq ${key}`,
          "fail",
          `${n} message(s) in ${dlqName}: inspect them, fix the cause, then redrive`,
        );
    } catch (err) {
      push(`dlq ${key}`, "fail", `GetQueueAttributes failed (${errName(err)})`);
    }
  }
  return out;
}

/** SES v1 (receipt rules) through @aws-sdk/client-ses when it is installed; it is not a dependency yet. */
async function sesV1ActiveRuleSet(
  region: string,
): Promise<{ name: string; rules: ReceiptRuleView[] } | null | "unavailable"> {
  const specifier = "@aws-sdk/client-ses";
  let mod: Record<string, new (...args: unknown[]) => { send(c: unknown): Promise<unknown> }>;
  try {
    mod = (await import(specifier)) as typeof mod;
  } catch {
    return "unavailable";
  }
  const Client = mod.SESClient as new (c: { region: string }) => { send(c: unknown): Promise<unknown> };
  const Describe = mod.DescribeActiveReceiptRuleSetCommand as new (i: object) => unknown;
  const r = (await new Client({ region }).send(new Describe({}))) as {
    Metadata?: { Name?: string };
    Rules?: {
      Name?: string;
      Enabled?: boolean;
      Recipients?: string[];
      Actions?: { S3Action?: { ObjectKeyPrefix?: string } }[];
    }[];
  };
  if (!r.Metadata?.Name) return null;
  return {
    name: r.Metadata.Name,
    rules: (r.Rules ?? []).map((rule) => ({
      name: rule.Name ?? "",
      enabled: rule.Enabled === true,
      recipients: rule.Recipients ?? [],
      s3Prefixes: (rule.Actions ?? []).flatMap((a) => (a.S3Action ? [a.S3Action.ObjectKeyPrefix ?? ""] : [])),
    })),
  };
}

const MARK = { ok: "ok  ", fail: "FAIL", warn: "warn", skipped: "skip" } as const;

export function formatReport(checks: readonly DoctorCheck[]): string {
  return checks.map((c) => `${MARK[c.status]}  ${c.check.padEnd(28)} ${c.detail}`).join("\n");
}

/** `postern doctor --resources FILE`: is the deployed stack ready to receive and send mail? */
export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .summary("check a deployed stack: identities, MX, receipt rules, tables, DLQs")
    .description(
      "Checks a deployed Postern stack with your AWS credentials: each domain's SES identity is verified (DKIM), " +
        "its MX points at SES inbound, Postern's receipt rules are in the ACTIVE rule set, every table answers, " +
        "and every dead-letter queue is empty. Exit code 1 when a check fails.",
    )
    .requiredOption("--resources <file>", "the stack's PosternResources output saved as JSON")
    .option(
      "--config <file>",
      "deployment config",
      existsSync("postern.config.json") ? "postern.config.json" : "postern.config.example.json",
    )
    .action(async (o: { resources: string; config: string }) => {
      const { openTarget } = await import("../target.ts");
      const target = await openTarget({ target: "aws", resourcesFile: o.resources });
      const { config } = loadConfigFile(o.config);
      const region = target.resources.region;
      try {
        const checks = await runDoctor(config, target.resources, {
          ses: new SESv2Client({ region }),
          dynamo: new DynamoDBClient({ region }),
          sqs: new SQSClient({ region }),
          resolveMx: (d) => dns.resolveMx(d),
          activeRuleSet: () => sesV1ActiveRuleSet(region),
        });
        console.log(formatReport(checks));
        if (checks.some((c) => c.status === "fail")) process.exitCode = 1;
      } finally {
        await target.close();
      }
    });
}
