import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Template } from "aws-cdk-lib/assertions";
import { buildApp } from "../../infra/build-app.ts";
import type { PosternStack } from "../../infra/postern-stack.ts";

export const ROOT = resolve(import.meta.dirname, "../..");
export const FIXTURES = join(ROOT, "test/infra/fixtures");
export const ENV = { account: "111111111111", region: "eu-west-1" } as const;

export interface Synthesized {
  readonly stack: PosternStack;
  readonly template: Template;
  readonly outdir: string;
  /** CDK's validation report (cdk-nag's AwsSolutions plugin among its plugins). */
  readonly report: ValidationReport;
}

export interface ValidationReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly conclusion: string;
    readonly violations: readonly { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

/** One synth (no esbuild: the template tests do not need the bundles), cdk-nag on. Throws on a nag error. */
export function synth(configFile: string): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), "postern-synth-"));
  const { stack } = buildApp({ projectRoot: ROOT, configFile, outdir, bundle: false, env: ENV });
  const template = Template.fromStack(stack);
  const report = JSON.parse(readFileSync(join(outdir, "validation-report.json"), "utf8")) as ValidationReport;
  return { stack, template, outdir, report };
}

type Json = Record<string, unknown>;
export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Json;
}

export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
export const resourcesOf = (s: Statement): unknown[] =>
  Array.isArray(s.Resource) ? s.Resource : [s.Resource];

/** Every statement of the IAM policies attached to the role with this logical id. */
export function roleStatements(template: Template, roleLogicalId: string): Statement[] {
  const policies = template.findResources("AWS::IAM::Policy");
  return Object.values(policies)
    .filter((p) => JSON.stringify((p as Json).Properties).includes(`"Ref":"${roleLogicalId}"`))
    .flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
          .Statement,
    );
}

export function logicalId(stack: PosternStack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as never);
}

/** A resource ARN as the template spells it, flattened to text for matching (`Fn::Join` parts concatenated). */
export function arnText(resource: unknown): string {
  if (typeof resource === "string") return resource;
  const join = (resource as { "Fn::Join"?: [string, unknown[]] })["Fn::Join"];
  if (join) return join[1].map(arnText).join(join[0]);
  const getAtt = (resource as { "Fn::GetAtt"?: string[] })["Fn::GetAtt"];
  if (getAtt) return `<${getAtt.join(".")}>`;
  const ref = (resource as { Ref?: string }).Ref;
  if (ref) return `<${ref}>`;
  return JSON.stringify(resource);
}
