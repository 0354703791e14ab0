import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  GetFoundationModelAvailabilityCommand,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from "@aws-sdk/client-bedrock";
import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { IAMServiceException, SimulatePrincipalPolicyCommand } from "@aws-sdk/client-iam";
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  ListEventSourceMappingsCommand,
} from "@aws-sdk/client-lambda";
import { DescribeSecretCommand } from "@aws-sdk/client-secrets-manager";
import { DescribeActiveReceiptRuleSetCommand, GetSendStatisticsCommand } from "@aws-sdk/client-ses";
import {
  GetAccountCommand,
  GetEmailIdentityCommand,
  ListSuppressedDestinationsCommand,
  NotFoundException,
} from "@aws-sdk/client-sesv2";
import { GetTopicAttributesCommand, ListSubscriptionsByTopicCommand } from "@aws-sdk/client-sns";
import { GetQueueAttributesCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import { DescribeParametersCommand } from "@aws-sdk/client-ssm";
import { Command } from "commander";
import { describe, expect, it, vi } from "vitest";
import { registerDoctorCommand } from "../../cli/commands/doctor.ts";
import { formatReport } from "../../cli/doctor/report.ts";
import { runDoctor } from "../../cli/doctor/run.ts";
import { TABLE_KEYS } from "../../shared/config/tables.ts";
import { type Answer, beforeDeploy, deployed, fakePorts, META, type Service, when } from "./doctor-fakes.ts";

/** Credentials the CLI could not use: what every client throws when the operator's session expired. */
const expired = () =>
  Object.assign(new Error("The security token included in the request is expired"), {
    name: "ExpiredTokenException",
  });
const everyCallFails = (): Record<Service, Answer[]> => {
  const all = (...commands: Parameters<typeof when>[0][]) => commands.map((c) => when(c).throws(expired()));
  return {
    lambda: all(GetAccountSettingsCommand, GetFunctionConcurrencyCommand, ListEventSourceMappingsCommand),
    ses: all(GetAccountCommand, GetEmailIdentityCommand, ListSuppressedDestinationsCommand),
    sesReceipt: all(DescribeActiveReceiptRuleSetCommand, GetSendStatisticsCommand),
    bedrock: all(
      GetInferenceProfileCommand,
      GetFoundationModelAvailabilityCommand,
      GetFoundationModelCommand,
    ),
    dynamo: all(DescribeTableCommand),
    sqs: all(GetQueueAttributesCommand, GetQueueUrlCommand),
    sns: all(ListSubscriptionsByTopicCommand, GetTopicAttributesCommand),
    secrets: all(DescribeSecretCommand),
    ssm: all(DescribeParametersCommand),
    iam: [
      when(SimulatePrincipalPolicyCommand).throws(
        new IAMServiceException({
          name: "AccessDenied",
          $fault: "client",
          $metadata: { httpStatusCode: 403 },
        }),
      ),
    ],
  };
};

describe("postern doctor", () => {
  it("a healthy deployed stack: every check ok, in the order of docs/deploy.md", async () => {
    const checks = await runDoctor(deployed(), fakePorts());
    expect(checks.filter((c) => c.status !== "ok")).toEqual([]);
    expect(checks.map((c) => c.check)).toEqual([
      "lambda concurrency",
      "ses sending",
      "ses production access",
      "model claude",
      "model access claude",
      "model quota claude",
      "model sonnet",
      "model secret sonnet",
      "model secret vllm",
      "receipt rule agents.example.com",
      ...TABLE_KEYS.map((k) => `table ${k}`),
      "dlq verify",
      "dlq agentStep",
      "dlq outbound",
      "trigger verify",
      "trigger agentStep",
      "trigger outbound",
      "schedule tick",
      "identity agents.example.com",
      "mx agents.example.com",
      "dmarc agents.example.com",
      "alarm subscription",
      "topic key notification",
      "topic key alarm",
      "outbound send agents.example.com",
      "model invoke claude",
      "console users",
      "console concurrency",
      "ses rejections",
      "ses suppression",
    ]);
  });

  it("before the first deploy: account checks run, stack checks say how to run them", async () => {
    const notYet = when(GetEmailIdentityCommand).throws(
      new NotFoundException({ message: "Email identity agents.example.com does not exist.", $metadata: {} }),
    );
    const emptySet = when(DescribeActiveReceiptRuleSetCommand).reply(() => ({
      ...META,
      Metadata: { Name: "default-rule-set" },
      Rules: [],
    }));
    const p = fakePorts({ ses: [notYet], sesReceipt: [emptySet] });
    const checks = await runDoctor(beforeDeploy(), p);
    expect(checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(checks.filter((c) => c.status === "skipped").map((c) => c.check)).toEqual([
      "tables",
      "dead-letter queues",
      "queue triggers",
      "alarm subscription",
      "topic keys",
      "outbound send",
      "model invoke",
      "console",
    ]);
    expect(p.calls.dynamo).toEqual([]);
    expect(p.calls.iam).toEqual([]);
  });

  it("never throws for an AWS answer: every call failing is a report of failed checks, each with its fix", async () => {
    const checks = await runDoctor(
      deployed(),
      fakePorts({
        ...everyCallFails(),
        mx: async () => Promise.reject(Object.assign(new Error("x"), { code: "ESERVFAIL" })),
        zone: { "_dmarc.agents.example.com": { error: "ESERVFAIL" } },
        cognito: {
          describeUserPool: async () => Promise.reject(expired()),
          listUsers: async () => Promise.reject(expired()),
        },
        scheduler: { getSchedule: async () => Promise.reject(expired()) },
        quotas: { listServiceQuotas: async () => Promise.reject(expired()) },
        // what fetch throws when the Claude API cannot be reached
        http: async () => Promise.reject(new TypeError("fetch failed")),
      }),
    );
    expect(checks.length).toBeGreaterThan(10);
    // DMARC's lookup failing says no more than a missing record would: a warning.
    for (const c of checks) expect(c.status, c.check).toBe(c.check.startsWith("dmarc") ? "warn" : "fail");
    expect(checks.find((c) => c.check === "lambda concurrency")).toMatchObject({
      detail:
        "lambda:GetAccountSettings failed (ExpiredTokenException: The security token included in the request is expired)",
      fix: "configure AWS credentials for the account (AWS_PROFILE, `aws sso login`), then run the doctor again",
    });
    expect(checks.find((c) => c.check.startsWith("outbound send"))).toMatchObject({
      fix: "allow iam:SimulatePrincipalPolicy to the identity running the doctor (or run it with the identity that deploys)",
    });
  });

  it("without credentials: one line saying so, and no AWS call at all", async () => {
    const none = Object.assign(new Error("Could not load credentials from any providers\nmore detail"), {
      name: "CredentialsProviderError",
    });
    const p = fakePorts({ credentials: async () => Promise.reject(none) });
    const checks = await runDoctor(deployed(), p);
    expect(checks).toEqual([
      {
        check: "credentials",
        status: "fail",
        detail:
          "no AWS credentials for eu-west-1 (CredentialsProviderError: Could not load credentials from any providers)",
        fix: "configure them (AWS_PROFILE, `aws sso login`, or `aws configure`), check with `aws sts get-caller-identity`, then run the doctor again",
      },
    ]);
    expect(formatReport(checks).split("\n")).toHaveLength(2);
    expect(Object.values(p.calls).flat()).toEqual([]);
    expect(p.dns.calls).toEqual([]);
  });

  it("a bug in the doctor is not an AWS answer: it throws", async () => {
    const bug = when(GetAccountCommand).reply(() => {
      throw new TypeError("Cannot read properties of undefined");
    });
    await expect(runDoctor(deployed(), fakePorts({ ses: [bug] }))).rejects.toThrow(TypeError);
  });

  it("the report prints each finding's fix under it", () => {
    expect(
      formatReport([
        { check: "mx agents.example.com", status: "ok", detail: "inbound-smtp.eu-west-1.amazonaws.com" },
        {
          check: "alarm subscription",
          status: "warn",
          detail: "nobody is subscribed",
          fix: "aws sns subscribe ...",
        },
      ]),
    ).toBe(
      "ok    mx agents.example.com          inbound-smtp.eu-west-1.amazonaws.com\n" +
        "warn  alarm subscription             nobody is subscribed\n" +
        "      fix: aws sns subscribe ...",
    );
  });

  it("without a region: one line saying how to give it, no help text, exit code 1", async () => {
    const saved = { AWS_REGION: process.env.AWS_REGION, AWS_DEFAULT_REGION: process.env.AWS_DEFAULT_REGION };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    const written: string[] = [];
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const program = new Command("postern").showHelpAfterError();
      registerDoctorCommand(program);
      // No local stack's state directory either (never the working directory's .postern: it may be a developer's).
      const noStack = join(mkdtempSync(join(tmpdir(), "postern-doctor-")), ".postern");
      await program.parseAsync([
        ...["node", "postern", "doctor", "--config", "postern.config.example.json"],
        ...["--dir", noStack],
      ]);
      expect(written).toEqual([
        "postern doctor: set AWS_REGION or pass --region (the region you deploy to); for the local stack, `npm start` here first, or pass --local\n",
      ]);
      expect(out).not.toHaveBeenCalled();
      expect(process.exitCode).toBe(1);
    } finally {
      err.mockRestore();
      out.mockRestore();
      process.exitCode = undefined;
      for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    }
  });

  it("`postern doctor --help` lists what it checks and its options", () => {
    const program = new Command("postern");
    registerDoctorCommand(program);
    // Whitespace folded: commander wraps the description at the terminal width.
    const help = (program.commands.find((c) => c.name() === "doctor")?.helpInformation() ?? "").replace(
      /\s+/g,
      " ",
    );
    for (const text of [
      "--resources <file>",
      "--config <file>",
      "--region <region>",
      "--agent-step-concurrency <n>",
      "--reserve-agent-step-concurrency",
      "--json",
      "Lambda concurrency quota",
      "production",
      "inference profile",
      "receipt rule set",
      "alarm subscription",
      "IAM policy simulation",
      "Bedrock quotas",
      "DMARC",
      "suppressed addresses",
      "queue trigger and the scheduler tick enabled",
      "KMS-encrypted",
      "MFA required",
      "reserved concurrency",
      "one line",
    ])
      expect(help).toContain(text);
  });
});
