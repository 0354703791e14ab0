import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTarget } from "../../cli/target.ts";
import { buildApp } from "../../infra/build-app.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { ENV, FIXTURES, ROOT } from "./synth.ts";

/** The PosternResources output with each CloudFormation reference replaced by a readable stand-in. */
function resolveOutput(value: unknown): string {
  if (typeof value === "string") return value;
  const v = value as { "Fn::Join"?: [string, unknown[]]; Ref?: string; "Fn::GetAtt"?: string[] };
  if (v["Fn::Join"]) return v["Fn::Join"][1].map(resolveOutput).join(v["Fn::Join"][0]);
  if (v.Ref) return `<${v.Ref}>`;
  if (v["Fn::GetAtt"]) return `<${v["Fn::GetAtt"].join(".")}>`;
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}

let dir: string;
let file: string;
let output: Record<string, unknown>;
let withConsole: Record<string, unknown>;

function synthOutput(config: string, outdir: string): Record<string, unknown> {
  const { app, stack } = buildApp({
    projectRoot: ROOT,
    configFile: join(FIXTURES, config),
    outdir,
    bundle: false,
    nag: false,
    env: ENV,
    reserveAgentStepConcurrency: true,
  });
  const outputs = app.synth().getStackByName(stack.stackName).template.Outputs as Record<
    string,
    { Value: unknown }
  >;
  return JSON.parse(resolveOutput(outputs.PosternResources?.Value)) as Record<string, unknown>;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "postern-doctor-resources-"));
  output = synthOutput("existing-mode.config.json", join(dir, "cdk.out"));
  withConsole = synthOutput("console.config.json", join(dir, "cdk.out.console"));
  file = join(dir, "postern.resources.json");
  writeFileSync(file, JSON.stringify(withConsole));
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the stack's PosternResources output carries what `postern doctor` reads", () => {
  it("alarm topic, outbound role, agent-step function and reservation, configuration set", () => {
    expect(output).toMatchObject({
      alarmTopicArn: expect.stringMatching(/^<OperationsAlarmTopic/),
      roles: { outbound: expect.stringMatching(/^<OutboundRole.*\.Arn>$/) },
      agentStep: { functionName: expect.stringMatching(/^<AgentStepFunction/), reservedConcurrency: 10 },
      configurationSet: expect.stringMatching(/^<SendingConfigurationSet/),
    });
  });

  it("the agent-step role, the notification topic, the tick's schedule; the console only when enabled", () => {
    expect(output).toMatchObject({
      roles: { agentStep: expect.stringMatching(/^<AgentStepRole.*\.Arn>$/) },
      notificationTopicArn: expect.stringMatching(/^<IntakeNotifications/),
      schedule: { name: expect.stringMatching(/^<ResponsibilitiesTick/), group: "default" },
    });
    expect(output.console).toBeUndefined();
    expect(withConsole.console).toEqual({
      functionName: expect.stringMatching(/^<ConsoleFunction/),
      userPoolId: expect.stringMatching(/^<ConsoleUsers/),
      reservedConcurrency: 5,
    });
  });

  it("and the CLI's --resources schema accepts it as saved", async () => {
    const target = await openTarget({ target: "aws", resourcesFile: file, env: { AWS_REGION: "eu-west-1" } });
    const r: Resources = target.resources;
    await target.close();
    expect(r.roles?.outbound).toBe(output.roles && (output.roles as { outbound: string }).outbound);
    expect(r.agentStep?.reservedConcurrency).toBe(10);
    expect(r.console?.userPoolId).toBe((withConsole.console as { userPoolId: string }).userPoolId);
    expect(r.schedule?.group).toBe("default");
  });
});
