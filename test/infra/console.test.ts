import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildAppOptions, buildApp } from "../../infra/build-app.ts";
import { NO_FUNCTION_URL_REGIONS, requireFunctionUrlRegion } from "../../infra/function-urls.ts";
import { SES_RECEIVING_REGIONS } from "../../infra/ses-receiving.ts";
import { ConfigError } from "../../shared/config/load.ts";
import type { TABLES } from "../../shared/config/tables.ts";
import {
  actionsOf,
  arnText,
  ENV,
  FIXTURES,
  logicalId,
  ROOT,
  resourcesOf,
  roleStatements,
  type Statement,
  type Synthesized,
  synth,
} from "./synth.ts";

// One synth with the console enabled; the plain stack's tests (stack.test.ts) show it absent by default.
let s: Synthesized;
let statements: Statement[];
beforeAll(() => {
  s = synth(`${FIXTURES}/console.config.json`);
  const c = s.stack.console;
  if (!c) throw new Error("console not synthesized");
  statements = roleStatements(s.template, logicalId(s.stack, c.role));
}, 300_000);
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

const granted = (action: string): string[] =>
  statements
    .filter((st) => st.Effect === "Allow" && actionsOf(st).includes(action))
    .flatMap((st) => resourcesOf(st).map(arnText));
const tableRef = (key: keyof typeof TABLES) => {
  const t = s.stack.tables.tables[key];
  return `<${logicalId(s.stack, t)}.Arn>`;
};

describe("console sign-in", () => {
  it("is an invite-only user pool with MFA required (TOTP), a strong password policy and deletion protection", () => {
    s.template.hasResourceProperties("AWS::Cognito::UserPool", {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: "ON",
      EnabledMfas: ["SOFTWARE_TOKEN_MFA"],
      UsernameAttributes: ["email"],
      DeletionProtection: "ACTIVE",
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 14, RequireSymbols: true }) },
    });
    s.template.resourceCountIs("AWS::Cognito::UserPool", 1);
  });

  it("has exactly the viewers and admins groups", () => {
    const groups = Object.values(s.template.findResources("AWS::Cognito::UserPoolGroup")).map(
      (g) => (g as { Properties: { GroupName: string } }).Properties.GroupName,
    );
    expect(groups.sort()).toEqual(["admins", "viewers"]);
  });

  it("has one public PKCE client: code flow only, callback on the console's own HTTPS URL, 30-minute tokens", () => {
    s.template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      GenerateSecret: false,
      AllowedOAuthFlows: ["code"],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ["openid", "email"],
      SupportedIdentityProviders: ["COGNITO"],
      PreventUserExistenceErrors: "ENABLED",
      IdTokenValidity: 30,
      CallbackURLs: [
        {
          "Fn::Join": [
            "",
            [
              { "Fn::GetAtt": [Match.stringLikeRegexp("ConsoleFunctionFunctionUrl"), "FunctionUrl"] },
              "auth/callback",
            ],
          ],
        },
      ],
    });
    s.template.hasResourceProperties("AWS::Cognito::UserPoolDomain", { Domain: "postern-test-console" });
  });

  it("serves the app from Lambda behind an HTTPS function URL (the app verifies every request's token)", () => {
    s.template.hasResourceProperties("AWS::Lambda::Url", { AuthType: "NONE" });
    s.template.hasResourceProperties("AWS::Lambda::Function", {
      Runtime: "nodejs24.x",
      Architectures: ["arm64"],
      Environment: {
        Variables: Match.objectLike({
          POSTERN_CONSOLE_USER_POOL_ID: Match.anyValue(),
          POSTERN_CONSOLE_CLIENT_ID_PARAMETER: "/Postern/console/client-id",
          POSTERN_CONSOLE_ORIGIN_PARAMETER: "/Postern/console/origin",
          POSTERN_CONSOLE_AUTH_DOMAIN: Match.anyValue(),
        }),
      },
    });
    // The console's origin is configuration: its own function URL, stored where the function reads it at cold start.
    s.template.hasResourceProperties("AWS::SSM::Parameter", {
      Name: "/Postern/console/origin",
      Value: { "Fn::GetAtt": [Match.stringLikeRegexp("ConsoleFunctionFunctionUrl"), "FunctionUrl"] },
    });
  });
});

describe("console role: least privilege", () => {
  it("writes only the admin tables, the audit log, the plan-decision and signed-out-session markers", () => {
    const admin = [
      "agents",
      "accessRules",
      "outboundRules",
      "toolkits",
      "responsibilities",
      "approvers",
      // Endpoints (their signing secrets are in Secrets Manager, below, never in the table).
      "webhooks",
      // Reviewed MCP servers: the console registers and reviews them (listing the live server) as the CLI does.
      "mcpServers",
    ] as const;
    expect(granted("dynamodb:PutItem").sort()).toEqual(
      [...admin.map(tableRef), tableRef("audit"), tableRef("state")].sort(),
    );
    expect(granted("dynamodb:DeleteItem").sort()).toEqual(admin.map(tableRef).sort());
    const statePut = statements.find(
      (st) =>
        actionsOf(st).includes("dynamodb:PutItem") &&
        resourcesOf(st).map(arnText).includes(tableRef("state")),
    );
    expect(actionsOf(statePut as Statement)).toEqual(["dynamodb:PutItem"]);
    expect(statePut?.Condition).toEqual({
      "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["consoledecision#*", "consolesession#*"] },
    });
    expect(granted("dynamodb:UpdateItem").sort()).toEqual(
      [...admin.map(tableRef), tableRef("audit"), tableRef("state")].sort(),
    );
    // In the state table, only the admin version (every admin write bumps it, so cached snapshots reload).
    const stateUpdate = statements.find(
      (st) =>
        actionsOf(st).includes("dynamodb:UpdateItem") &&
        resourcesOf(st).map(arnText).includes(tableRef("state")),
    );
    expect(actionsOf(stateUpdate as Statement)).toEqual(["dynamodb:UpdateItem"]);
    expect(stateUpdate?.Condition).toEqual({
      "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": ["admin#version"] },
    });
  });

  it("scans only the admin tables; reads runtime state by key or through its indexes", () => {
    for (const r of granted("dynamodb:Scan"))
      expect(r).not.toMatch(/runs|runEvents|inbound|messages|threads|state/i);
    expect(granted("dynamodb:Query")).toEqual(
      expect.arrayContaining([
        `${tableRef("runs")}/index/byAgent`,
        `${tableRef("inbound")}/index/refusalsByDay`,
        `${tableRef("messages")}/index/byThread`,
        `${tableRef("threads")}/index/byActivity`,
        `${tableRef("state")}/index/plansByState`,
      ]),
    );
    expect(granted("dynamodb:GetItem")).not.toContain(tableRef("inbound"));
  });

  it("reads mail bodies, attachments and raw inbound mail (admins' download), never writes, sends to agent-step and the events queue only, sends no mail", () => {
    const reads = granted("s3:GetObject");
    expect(reads.sort()).toEqual([
      "<MailStoreMailA2DAC336.Arn>/files/*",
      "<MailStoreMailA2DAC336.Arn>/inbound/*",
      "<MailStoreMailA2DAC336.Arn>/mail/*",
    ]);
    expect(granted("s3:PutObject")).toEqual([]);
    expect(granted("sqs:SendMessage").sort()).toEqual(
      [
        `<${logicalId(s.stack, s.stack.queues.agentStep.queue)}.Arn>`,
        // A webhook's test event (`postern webhooks test`'s path); never the events DLQ.
        `<${logicalId(s.stack, s.stack.webhooks.queue.queue)}.Arn>`,
      ].sort(),
    );
    for (const st of statements)
      for (const a of actionsOf(st)) expect(a).not.toMatch(/^(ses|bedrock|cognito-idp):|\*/);
  });
});

describe("console role: secrets", () => {
  const prefix = (p: string) =>
    `arn:<AWS::Partition>:secretsmanager:${ENV.region}:${ENV.account}:secret:${p}*`;
  it("makes, rotates and removes webhook signing secrets under postern/webhooks/ only; reads MCP credentials only", () => {
    for (const a of [
      "secretsmanager:CreateSecret",
      "secretsmanager:PutSecretValue",
      "secretsmanager:DeleteSecret",
    ])
      expect(
        granted(a).map((r) => r.replace(/^arn:(<AWS::Partition>|aws)/, "arn:<AWS::Partition>")),
        a,
      ).toEqual([prefix("postern/webhooks/")]);
    expect(
      granted("secretsmanager:GetSecretValue")
        .map((r) => r.replace(/^arn:(<AWS::Partition>|aws)/, "arn:<AWS::Partition>"))
        .sort(),
    ).toEqual([prefix("postern/mcp/"), prefix("postern/webhooks/")].sort());
  });
});

describe("the console function is bounded, and only deployed where function URLs exist", () => {
  const console = `${FIXTURES}/console.config.json`;
  const build = (o: Partial<BuildAppOptions>) => {
    const outdir = mkdtempSync(join(tmpdir(), "postern-console-"));
    try {
      const { stack } = buildApp({
        projectRoot: ROOT,
        configFile: console,
        outdir,
        bundle: false,
        nag: false,
        ...o,
      });
      return Template.fromStack(stack);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  };
  const fnProps = (t: Template) =>
    Object.values(t.findResources("AWS::Lambda::Function"))
      .map((f) => f.Properties as { Handler: string; ReservedConcurrentExecutions?: number })
      .filter((p) => p.Handler === "index.handler" && p.ReservedConcurrentExecutions !== undefined);

  it("reserves 5 executions by default, its ceiling: a flood of anonymous requests cannot take the pipeline's", () => {
    const fn =
      s.template.findResources("AWS::Lambda::Function")[logicalId(s.stack, s.stack.console?.fn as never)];
    const props = (fn?.Properties ?? {}) as { ReservedConcurrentExecutions?: number };
    expect(props.ReservedConcurrentExecutions).toBe(5);
    // The resources file names the function and its reservation, for `postern doctor`.
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const resources = JSON.parse(arnText(outputs.PosternResources?.Value)) as { console?: unknown };
    expect(resources.console).toMatchObject({
      functionName: `<${logicalId(s.stack, s.stack.console?.fn as never)}>`,
      reservedConcurrency: 5,
    });
  });

  it("the reservation is a stack option: another size, or 0 for none; anything else is refused at synth", () => {
    expect(
      fnProps(build({ env: ENV, consoleReservedConcurrency: 20 })).map((p) => p.ReservedConcurrentExecutions),
    ).toEqual([20]);
    expect(fnProps(build({ env: ENV, consoleReservedConcurrency: 0 }))).toEqual([]);
    expect(() => build({ env: ENV, consoleReservedConcurrency: 2.5 })).toThrow(
      /reservedConcurrency must be an integer/,
    );
  }, 60_000);

  it.each(SES_RECEIVING_REGIONS.filter((r) => (NO_FUNCTION_URL_REGIONS as readonly string[]).includes(r)))(
    "synth refuses a console in %s (SES receives there, Lambda has no function URLs) before any construct",
    (region) => {
      let thrown: unknown;
      try {
        build({ env: { account: ENV.account, region } });
      } catch (err) {
        thrown = err;
      }
      // A ConfigError from buildApp, checked before the stack (or any retained resource) is constructed.
      expect(thrown).toBeInstanceOf(ConfigError);
      expect(String((thrown as Error).message)).toMatch(
        new RegExp(`console.enabled: region ${region} has no Lambda function URLs`),
      );
    },
  );

  it("the construct refuses the region itself, for an app that builds the stack without buildApp", () => {
    const app = new App();
    const stack = new Stack(app, "S", { env: { account: ENV.account, region: "il-central-1" } });
    expect(() => requireFunctionUrlRegion(stack)).toThrow(/il-central-1 has no Lambda function URLs/);
  });

  it("a template without a region carries a rule that refuses the console where function URLs are missing", () => {
    const rules = build({}).toJSON().Rules as Record<string, { Assertions: { Assert: unknown }[] }>;
    expect(rules.ConsoleFunctionUrlRegion?.Assertions[0]?.Assert).toEqual({
      "Fn::Not": [{ "Fn::Contains": [[...NO_FUNCTION_URL_REGIONS], { Ref: "AWS::Region" }] }],
    });
  }, 60_000);
});

describe("console and cdk-nag", () => {
  it("synthesizes clean: every acknowledged finding carries its reason", () => {
    const nag = s.report.pluginReports.filter((r) => r.pluginName === "AwsSolutions");
    expect(nag.flatMap((r) => r.violations.map((v) => v.ruleName))).toEqual([]);
  });

  it("is absent unless the config enables it", async () => {
    const plain = synth(`${FIXTURES}/existing-mode.config.json`);
    try {
      expect(plain.stack.console).toBeUndefined();
      plain.template.resourceCountIs("AWS::Cognito::UserPool", 0);
      plain.template.resourceCountIs("AWS::Lambda::Url", 0);
    } finally {
      rmSync(plain.outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
