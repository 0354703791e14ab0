import { GetFoundationModelAvailabilityCommand, GetInferenceProfileCommand } from "@aws-sdk/client-bedrock";
import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { IAMServiceException, SimulatePrincipalPolicyCommand } from "@aws-sdk/client-iam";
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand } from "@aws-sdk/client-lambda";
import { DescribeActiveReceiptRuleSetCommand } from "@aws-sdk/client-ses";
import { GetAccountCommand, GetEmailIdentityCommand, NotFoundException } from "@aws-sdk/client-sesv2";
import { ListSubscriptionsByTopicCommand } from "@aws-sdk/client-sns";
import { GetQueueAttributesCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
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
    lambda: all(GetAccountSettingsCommand, GetFunctionConcurrencyCommand),
    ses: all(GetAccountCommand, GetEmailIdentityCommand),
    sesReceipt: all(DescribeActiveReceiptRuleSetCommand),
    bedrock: all(GetInferenceProfileCommand, GetFoundationModelAvailabilityCommand),
    dynamo: all(DescribeTableCommand),
    sqs: all(GetQueueAttributesCommand, GetQueueUrlCommand),
    sns: all(ListSubscriptionsByTopicCommand),
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
      "receipt rule agents.example.com",
      ...TABLE_KEYS.map((k) => `table ${k}`),
      "dlq verify",
      "dlq agentStep",
      "dlq outbound",
      "identity agents.example.com",
      "mx agents.example.com",
      "alarm subscription",
      "outbound send agents.example.com",
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
      "alarm subscription",
      "outbound send",
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
      }),
    );
    expect(checks.length).toBeGreaterThan(10);
    for (const c of checks) expect(c.status).toBe("fail");
    expect(checks.find((c) => c.check === "lambda concurrency")).toMatchObject({
      detail:
        "lambda:GetAccountSettings failed (ExpiredTokenException: The security token included in the request is expired)",
      fix: "configure AWS credentials for the account (AWS_PROFILE, `aws sso login`), then run the doctor again",
    });
    expect(checks.find((c) => c.check.startsWith("outbound send"))).toMatchObject({
      fix: "allow iam:SimulatePrincipalPolicy to the identity running the doctor (or run it with the identity that deploys)",
    });
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

  it("`postern doctor --help` lists what it checks and its options", () => {
    const program = new Command("postern");
    registerDoctorCommand(program);
    const help = program.commands.find((c) => c.name() === "doctor")?.helpInformation() ?? "";
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
    ])
      expect(help).toContain(text);
  });
});
