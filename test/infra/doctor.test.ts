import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { GetEmailIdentityCommand } from "@aws-sdk/client-sesv2";
import { GetQueueAttributesCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { type DoctorPorts, formatReport, runDoctor } from "../../cli/commands/doctor.ts";
import { parseConfig } from "../../shared/config/load.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { TABLE_KEYS, type TableKey } from "../../shared/store/tables.ts";

const config = parseConfig({
  domains: ["agents.example.com"],
  models: [{ id: "m", provider: "bedrock", modelId: "amazon.nova-pro-v1:0", egress: "internal" }],
  receiptRuleSet: { mode: "existing", name: "default-rule-set" },
});
const resources: Resources = {
  region: "eu-west-1",
  tables: Object.fromEntries(TABLE_KEYS.map((k) => [k, `Postern-${k}`])) as Record<TableKey, string>,
  bucket: "mail",
  queues: { verify: "https://q/verify", agentStep: "https://q/agentStep", outbound: "https://q/outbound" },
};

interface World {
  verified: boolean;
  mx: { exchange: string; priority: number }[];
  active: Awaited<ReturnType<DoctorPorts["activeRuleSet"]>>;
  dlqDepth: number;
  missingTable?: string;
}

/** Fakes that answer from `world` and record every command they were sent. */
function ports(world: World): DoctorPorts & { calls: string[] } {
  const calls: string[] = [];
  const sender = (answer: (cmd: unknown) => unknown) => ({
    send: async (cmd: unknown) => {
      calls.push((cmd as object).constructor.name);
      return answer(cmd) as never;
    },
  });
  return {
    calls,
    ses: sender((cmd) => {
      if (!(cmd instanceof GetEmailIdentityCommand)) throw new Error("unexpected");
      return {
        VerifiedForSendingStatus: world.verified,
        DkimAttributes: { Status: world.verified ? "SUCCESS" : "PENDING" },
        MailFromAttributes: { MailFromDomainStatus: "SUCCESS" },
      };
    }),
    dynamo: sender((cmd) => {
      const name = (cmd as DescribeTableCommand).input.TableName;
      if (!(cmd instanceof DescribeTableCommand)) throw new Error("unexpected");
      if (name === world.missingTable)
        throw Object.assign(new Error("x"), { name: "ResourceNotFoundException" });
      return { Table: { TableStatus: "ACTIVE" } };
    }),
    sqs: sender((cmd) => {
      if (cmd instanceof GetQueueUrlCommand) return { QueueUrl: `https://q/${cmd.input.QueueName}` };
      if (!(cmd instanceof GetQueueAttributesCommand)) throw new Error("unexpected");
      const url = cmd.input.QueueUrl ?? "";
      if (url.endsWith("-dlq"))
        return { Attributes: { ApproximateNumberOfMessages: String(world.dlqDepth) } };
      const name = url.split("/").pop();
      return {
        Attributes: {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: `arn:aws:sqs:eu-west-1:111111111111:${name}-dlq`,
          }),
        },
      };
    }),
    resolveMx: async () => world.mx,
    activeRuleSet: async () => world.active,
  };
}

const healthy: World = {
  verified: true,
  mx: [{ exchange: "inbound-smtp.eu-west-1.amazonaws.com.", priority: 10 }],
  active: {
    name: "default-rule-set",
    rules: [
      {
        name: "postern-agents.example.com",
        enabled: true,
        recipients: ["agents.example.com"],
        s3Prefixes: ["inbound/"],
      },
    ],
  },
  dlqDepth: 0,
};

const statusOf = (checks: Awaited<ReturnType<typeof runDoctor>>, name: string) =>
  checks.filter((c) => c.check.startsWith(name)).map((c) => c.status);

describe("postern doctor", () => {
  it("a healthy stack: every check ok, each table and each DLQ asked", async () => {
    const p = ports(healthy);
    const checks = await runDoctor(config, resources, p);
    expect(checks.filter((c) => c.status !== "ok")).toEqual([]);
    expect(checks).toHaveLength(1 + 1 + 1 + TABLE_KEYS.length + 3);
    expect(p.calls.filter((c) => c === "DescribeTableCommand")).toHaveLength(TABLE_KEYS.length);
    expect(p.calls.filter((c) => c === "GetQueueUrlCommand")).toHaveLength(3);
    expect(formatReport(checks)).toMatch(/^ok {4}identity agents\.example\.com/);
  });

  it("fails an unverified identity, an MX elsewhere, an inactive rule set, a missing table, a non-empty DLQ", async () => {
    const checks = await runDoctor(
      config,
      resources,
      ports({
        ...healthy,
        verified: false,
        mx: [{ exchange: "mx.other.example", priority: 10 }],
        active: { name: "someone-elses", rules: [] },
        dlqDepth: 3,
        missingTable: "Postern-runs",
      }),
    );
    expect(statusOf(checks, "identity")).toEqual(["fail"]);
    expect(statusOf(checks, "mx")).toEqual(["fail"]);
    expect(checks.find((c) => c.check === "receipt rules")?.detail).toMatch(
      /active rule set is someone-elses/,
    );
    expect(statusOf(checks, "table runs")).toEqual(["fail"]);
    expect(statusOf(checks, "dlq")).toEqual(["fail", "fail", "fail"]);
    expect(checks.find((c) => c.check === "dlq verify")?.detail).toMatch(/3 message\(s\) in verify-dlq/);
  });

  it("a rule set without an enabled rule for the domain, or none active, fails; an MX of lower preference warns", async () => {
    const disabled = await runDoctor(
      config,
      resources,
      ports({
        ...healthy,
        mx: [
          { exchange: "backup.example", priority: 5 },
          { exchange: "inbound-smtp.eu-west-1.amazonaws.com", priority: 10 },
        ],
        active: {
          name: "default-rule-set",
          rules: [
            {
              name: "x",
              enabled: false,
              recipients: ["agents.example.com"],
              s3Prefixes: ["inbound/"],
            },
          ],
        },
      }),
    );
    expect(statusOf(disabled, "receipt rule agents")).toEqual(["fail"]);
    expect(statusOf(disabled, "mx")).toEqual(["warn"]);
    const none = await runDoctor(config, resources, ports({ ...healthy, active: null }));
    expect(none.find((c) => c.check === "receipt rules")?.detail).toMatch(/no receipt rule set is active/);
  });

  it("without the SES v1 client the rule-set check is skipped and says how to run it", async () => {
    const checks = await runDoctor(config, resources, ports({ ...healthy, active: "unavailable" }));
    expect(checks.find((c) => c.check === "receipt rules")).toMatchObject({
      status: "skipped",
      detail: expect.stringMatching(/@aws-sdk\/client-ses/),
    });
  });
});
