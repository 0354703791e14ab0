import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRICES } from "../../bench/aws-prices.ts";
import { costTables, DOC_FILE, docBlock, readMeasured } from "../../bench/cost-table.ts";
import {
  BILLING,
  type CfnTemplate,
  customMetrics,
  type FixedLine,
  fixedCosts,
  hoursWithMail,
  ratePerMonth,
} from "../../bench/fixed-costs.ts";
import { buildApp } from "../../infra/build-app.ts";
import { ENV, FIXTURES, ROOT } from "./synth.ts";

const OPTIONS = { mailsPerMonth: 0, storedKbPerMail: 10, tick: { ms: 100, memoryMb: 1024, readUnits: 1 } };
const MONTH_MINUTES = 30 * 24 * 60;

let dir: string;
let template: CfnTemplate;
let createMode: CfnTemplate;
let example: CfnTemplate;
let withConsole: CfnTemplate;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "postern-fixed-costs-"));
  const synthOf = (config: string, out: string) => {
    const { app, stack } = buildApp({
      projectRoot: ROOT,
      configFile: join(FIXTURES, config),
      outdir: join(dir, out),
      bundle: false,
      nag: false,
      env: ENV,
    });
    return app.synth().getStackByName(stack.stackName).template as CfnTemplate;
  };
  template = synthOf("existing-mode.config.json", "existing");
  createMode = synthOf("create-mode.config.json", "create");
  withConsole = synthOf("console.config.json", "console");
  // As bench:cost synthesizes it for docs/deploy.md.
  example = (() => {
    const { app, stack } = buildApp({
      projectRoot: ROOT,
      configFile: join(ROOT, "postern.config.example.json"),
      outdir: join(dir, "example"),
      bundle: false,
      nag: false,
      env: { account: "111111111111", region: PRICES.region },
    });
    return app.synth().getStackByName(stack.stackName).template as CfnTemplate;
  })();
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (lines: readonly FixedLine[], prefix: string): FixedLine => {
  const l = lines.find((x) => x.what.startsWith(prefix));
  if (!l) throw new Error(`no line ${prefix} in ${lines.map((x) => x.what).join("; ")}`);
  return l;
};

describe("bench:cost's fixed monthly costs, counted from the synthesized template", () => {
  it("counts what the stack creates: two keys, every alarm, the dashboard, PITR tables, the tick, five triggers (verify, agent-step, outbound, delivery events, webhooks)", () => {
    const lines = fixedCosts(template, OPTIONS);
    expect(line(lines, "KMS").count).toBe(2);
    expect(line(lines, "KMS").usd).toBe(2 * PRICES.kms.perKeyMonth);
    const alarms = Object.values(template.Resources).filter(
      (r) => r.Type === "AWS::CloudWatch::Alarm",
    ).length;
    expect(alarms).toBeGreaterThan(5);
    expect(line(lines, "CloudWatch alarms").count).toBe(alarms);
    expect(line(lines, "CloudWatch dashboards").usd).toBe(PRICES.cloudwatch.perDashboardMonth);
    const tables = Object.values(template.Resources).filter((r) => r.Type === "AWS::DynamoDB::Table").length;
    expect(line(lines, "DynamoDB PITR").count).toBe(tables);
    expect(line(lines, "Scheduler tick").count).toBe(MONTH_MINUTES);
    // verify and outbound may scale back to 2 pollers when idle; agent-step sets maximum concurrency, so keeps 5.
    expect(line(lines, "SQS polling").what).toMatch(/^SQS polling \(5 queue triggers, 13 pollers,/);
    expect(line(lines, "SQS polling").count).toBe(13 * 3 * MONTH_MINUTES);
    expect(line(lines, "Secrets Manager").count).toBe(1);
  });

  it("secrets are counted once each, by name or ARN; an SSM parameter is not a secret", () => {
    // create-mode: one ssm: parameter and one Secrets Manager ARN (granted as ARN and ARN-??????).
    expect(line(fixedCosts(createMode, OPTIONS), "Secrets Manager").count).toBe(1);
  });

  it("only PITR and the mail-driven custom metrics move with the volume: the month's mail at the stated KB each", () => {
    const at = (mailsPerMonth: number) => fixedCosts(template, { ...OPTIONS, mailsPerMonth });
    expect(line(at(0), "DynamoDB PITR").usd).toBe(0);
    const gb = (100_000 * 10) / 1024 ** 2;
    expect(line(at(100_000), "DynamoDB PITR").usd).toBeCloseTo(gb * PRICES.dynamodb.pitrPerGbMonth, 10);
    const others = (mails: number) =>
      at(mails)
        .filter((l) => !l.what.startsWith("DynamoDB PITR") && !l.what.startsWith("CloudWatch custom"))
        .map((l) => l.usd);
    expect(others(100_000)).toEqual(others(0));
  });

  it("counts each log metric filter's custom metric once, every hour when the tick's function writes its log group", () => {
    const filters = Object.values(template.Resources).filter((r) => r.Type === "AWS::Logs::MetricFilter");
    const names = new Set(
      filters.flatMap((f) =>
        ((f.Properties?.MetricTransformations ?? []) as { MetricName: string }[]).map(
          (m) => `Postern/${m.MetricName}`,
        ),
      ),
    );
    expect(filters.length).toBeGreaterThan(names.size); // WebhookUndelivered comes from five log groups: one metric
    const m = customMetrics(template);
    expect(new Set([...m.always, ...m.withMail])).toEqual(names);
    // agent-step's log group is written every minute by the tick: its five publish every hour, even at 0 mails.
    expect(m.always.sort()).toEqual(
      ["McpDefinitionChanged", "McpUnavailable", "PlanFailed", "RunFailed", "WebhookUndelivered"].map(
        (n) => `Postern/${n}`,
      ),
    );
    const always = m.always.length;
    const withMail = names.size - always;
    const usd = (mails: number) =>
      line(fixedCosts(template, { ...OPTIONS, mailsPerMonth: mails }), "CloudWatch custom").usd;
    expect(usd(0)).toBeCloseTo(always * PRICES.cloudwatch.perMetricMonth, 10);
    expect(usd(1_000)).toBeCloseTo(
      (always + withMail * hoursWithMail(1_000)) * PRICES.cloudwatch.perMetricMonth,
      10,
    );
    expect(usd(100_000)).toBeCloseTo(names.size * PRICES.cloudwatch.perMetricMonth, 4);
  });

  it("a secret per item under each prefix grant (webhook endpoints, MCP servers), as many as the operator keeps", () => {
    const at = (items: Record<string, number>) => fixedCosts(template, { ...OPTIONS, secretItems: items });
    expect(line(at({}), "Secrets Manager, $0.40 a month per item under postern/webhooks/*").usd).toBe(0);
    const lines = at({ "postern/webhooks/": 3, "postern/mcp/": 2 });
    expect(line(lines, "Secrets Manager, $0.40 a month per item under postern/webhooks/*").usd).toBeCloseTo(
      1.2,
      10,
    );
    expect(line(lines, "Secrets Manager, $0.40 a month per item under postern/mcp/*").usd).toBeCloseTo(
      0.8,
      10,
    );
  });

  it("every resource type the template makes is in BILLING: priced by a line, per mail, as storage, or free with a reason", () => {
    for (const t of [template, createMode, withConsole, example]) {
      const types = new Set(Object.values(t.Resources).map((r) => r.Type));
      expect([...types].filter((type) => !(type in BILLING))).toEqual([]);
    }
  });

  it("docs/deploy.md's cost tables are the ones the template and bench:cost's last measurement give", () => {
    const doc = docBlock(readFileSync(join(ROOT, DOC_FILE), "utf8"));
    expect(doc).not.toBeNull();
    expect(doc).toBe(costTables(example, readMeasured(join(ROOT, "bench/cost-measured.json"))));
  });

  it("a metric-math alarm pays per metric; a schedule's rate sets the ticks", () => {
    const t: CfnTemplate = {
      Resources: {
        A: {
          Type: "AWS::CloudWatch::Alarm",
          Properties: { Metrics: [{ MetricStat: {} }, { MetricStat: {} }, { Expression: "m1+m2" }] },
        },
        B: { Type: "AWS::CloudWatch::Alarm", Properties: { MetricName: "Errors" } },
        S: { Type: "AWS::Scheduler::Schedule", Properties: { ScheduleExpression: "rate(5 minutes)" } },
      },
    };
    const lines = fixedCosts(t, OPTIONS);
    expect(line(lines, "CloudWatch alarms").count).toBe(3);
    expect(line(lines, "Scheduler tick").count).toBe(MONTH_MINUTES / 5);
    expect(ratePerMonth("rate(1 hour)")).toBe(720);
    expect(ratePerMonth("cron(0 * * * ? *)")).toBeNull();
  });
});
