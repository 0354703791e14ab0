import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../infra/build-app.ts";
import { ENV, FIXTURES, ROOT } from "./synth.ts";

/**
 * CloudFormation's service namespace (`AWS::<Namespace>::Type`) → the IAM prefix whose actions create it. A namespace
 * missing here fails the test: add it, and its row to docs/deploy.md's permission table.
 */
const IAM_PREFIX: Record<string, string> = {
  CloudFormation: "cloudformation",
  IAM: "iam",
  Lambda: "lambda",
  Logs: "logs",
  S3: "s3",
  DynamoDB: "dynamodb",
  SQS: "sqs",
  SNS: "sns",
  KMS: "kms",
  SES: "ses",
  Scheduler: "scheduler",
  Events: "events",
  CloudWatch: "cloudwatch",
  Cognito: "cognito-idp",
  SSM: "ssm",
  SecretsManager: "secretsmanager",
};

/** The variants that between them create every resource type: console on, and `create` mode's own rule set. */
const VARIANTS = ["existing-mode.config.json", "console.config.json", "create-mode.config.json"];

/** The IAM prefixes docs/deploy.md's "Deployer permissions" table names (its first column). */
function documented(): Set<string> {
  const doc = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
  const start = doc.indexOf("## Deployer permissions");
  expect(start, "docs/deploy.md has a Deployer permissions section").toBeGreaterThan(0);
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return new Set([...section.matchAll(/^\| `([a-z0-9-]+)`/gm)].map((m) => m[1] ?? ""));
}

let dir: string;
const types = new Set<string>();
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "postern-deploy-permissions-"));
  for (const [i, config] of VARIANTS.entries()) {
    const { app, stack } = buildApp({
      projectRoot: ROOT,
      configFile: join(FIXTURES, config),
      outdir: join(dir, String(i)),
      bundle: false,
      nag: false,
      env: ENV,
    });
    const t = app.synth().getStackByName(stack.stackName).template as {
      Resources: Record<string, { Type: string }>;
    };
    for (const r of Object.values(t.Resources)) types.add(r.Type);
  }
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `AWS::Cognito::UserPool` → cognito-idp; a custom resource (`Custom::X`) → cloudformation. */
function prefixOf(type: string): string {
  if (type.startsWith("Custom::")) return "cloudformation";
  const namespace = type.split("::")[1] ?? "";
  const prefix = IAM_PREFIX[namespace];
  if (!prefix)
    throw new Error(
      `${type}: add its namespace to IAM_PREFIX and a row to docs/deploy.md's permission table`,
    );
  return prefix;
}

describe("docs/deploy.md names every service the deployer needs", () => {
  it("every resource type of the synthesized template belongs to a service the permission table names", () => {
    expect(types.size).toBeGreaterThan(20);
    const names = documented();
    const missing = [...types].filter((t) => !names.has(prefixOf(t)));
    expect(
      missing,
      "resource types whose service docs/deploy.md's Deployer permissions table does not name",
    ).toEqual([]);
  });

  it("and names the services the steps use by hand: Secrets Manager for model keys, STS for the CDK roles", () => {
    const names = documented();
    for (const s of ["secretsmanager", "ssm", "sts", "cognito-idp"]) expect(names.has(s), s).toBe(true);
  });
});
