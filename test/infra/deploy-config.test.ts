import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DEMO_CONFIG, DEMO_REFUNDS_SCRIPT, DEMO_SCRIPT } from "../../cli/local/demo.ts";
import { buildApp } from "../../infra/build-app.ts";
import { chooseConfigFile, loadSynthConfig } from "../../infra/synth-config.ts";
import { ROOT } from "./synth.ts";

/**
 * A deploy reads its own config (`-c config=FILE`, else postern.deploy.json), never the local stack's
 * postern.config.json, and refuses what only a local config may hold: `.test` domains, scripted models, a model
 * server on loopback, each named. Two stacks (staging, production) deploy side by side under their own names.
 */

const bedrock = {
  id: "claude",
  provider: "bedrock",
  modelId: "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
  egress: "internal",
};

/** The demo's config and scripts as `npm start` writes them, plus an Ollama entry: a typical local config. */
function localConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), "postern-local-cfg-"));
  writeFileSync(join(dir, "demo-script.json"), JSON.stringify(DEMO_SCRIPT));
  writeFileSync(join(dir, "demo-refunds-script.json"), JSON.stringify(DEMO_REFUNDS_SCRIPT));
  const ollama = {
    id: "local",
    provider: "openai-compatible",
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "llama3.1",
    egress: "internal",
  };
  const file = join(dir, "postern.config.json");
  writeFileSync(file, JSON.stringify({ ...DEMO_CONFIG, models: [...DEMO_CONFIG.models, ollama] }));
  return file;
}

const DEPLOY_REFUSALS = [
  /domains\.0: demo\.postern\.test is under \.test, which no DNS delegates/,
  /models\.0 \(demo\): a scripted model answers from a file, not a model/,
  /models\.1 \(demo-refunds\): a scripted model answers from a file, not a model/,
  /models\.2 \(local\)\.baseUrl: http:\/\/127\.0\.0\.1:11434\/v1 is a loopback address, unreachable from Lambda/,
];

describe("a local config in a deploy", () => {
  it("is refused, naming each domain and model only a local stack can use", () => {
    let message = "";
    try {
      loadSynthConfig(localConfig(), { deploy: true });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const refusal of DEPLOY_REFUSALS) expect(message).toMatch(refusal);
    expect(message.split("\n").filter((l) => l.startsWith("  - "))).toHaveLength(DEPLOY_REFUSALS.length);
  });

  it("every reserved top-level name is refused, and only as a whole label", () => {
    const withDomains = (domains: string[]) => {
      const dir = mkdtempSync(join(tmpdir(), "postern-dom-"));
      const file = join(dir, "postern.deploy.json");
      writeFileSync(file, JSON.stringify({ domains, models: [bedrock] }));
      return file;
    };
    const refused = ["a.test", "b.example", "c.invalid", "d.localhost"];
    expect(() => loadSynthConfig(withDomains(refused), { deploy: true })).toThrow(
      /domains\.0: a\.test.*\n.*domains\.1: b\.example.*\n.*domains\.2: c\.invalid.*\n.*domains\.3: d\.localhost/,
    );
    expect(() =>
      loadSynthConfig(withDomains(["agents.example.com", "test.example.org", "mytest.net"]), {
        deploy: true,
      }),
    ).not.toThrow();
  });

  it("outside a deploy (a test synthesizing a local config's template) it passes with the loopback warning", () => {
    const c = loadSynthConfig(localConfig());
    expect(c.scripts).toEqual(["demo-script.json", "demo-refunds-script.json"]);
    expect(c.warnings).toEqual([expect.stringMatching(/models\.2 \(local\).*loopback address/)]);
  });

  it("`npx cdk synth` (infra/app.ts) is a deploy: it exits 1 naming each, before any construct", async () => {
    const failed = await runApp({ config: localConfig() });
    expect(failed?.code).toBe(1);
    for (const refusal of DEPLOY_REFUSALS) expect(failed?.stderr).toMatch(refusal);
  }, 120_000);
});

describe("which config a deploy reads", () => {
  const root = () => mkdtempSync(join(tmpdir(), "postern-root-"));

  it("postern.deploy.json; never the local postern.config.json, nor the example", () => {
    const dir = root();
    writeFileSync(join(dir, "postern.config.example.json"), "{}");
    expect(() => chooseConfigFile(dir)).toThrow(
      /no deploy config: `cp postern\.config\.example\.json postern\.deploy\.json` and edit it/,
    );
    writeFileSync(join(dir, "postern.config.json"), "{}");
    expect(() => chooseConfigFile(dir)).toThrow(
      /postern\.config\.json is the local stack's .* never deployed; .*`mv postern\.config\.json postern\.deploy\.json`/,
    );
    writeFileSync(join(dir, "postern.deploy.json"), "{}");
    expect(chooseConfigFile(dir)).toBe(join(dir, "postern.deploy.json"));
  });

  it("the committed example passes a deploy once its loopback model is removed (docs/deploy.md, step 2)", () => {
    const example = JSON.parse(readFileSync(join(ROOT, "postern.config.example.json"), "utf8")) as {
      models: { id: string; baseUrl?: string }[];
    };
    expect(() => loadSynthConfig(join(ROOT, "postern.config.example.json"), { deploy: true })).toThrow(
      /models\.1 \(local\)\.baseUrl: .* loopback/,
    );
    const dir = root();
    const file = join(dir, "postern.deploy.json");
    writeFileSync(
      file,
      JSON.stringify({ ...example, models: example.models.filter((m) => m.id !== "local") }),
    );
    expect(() => loadSynthConfig(file, { deploy: true })).not.toThrow();
  });
});

describe("staging and production side by side", () => {
  /** Names that are not the resource's own in the account and region: scoped to a parent, or a shared reference. */
  const NOT_ACCOUNT_WIDE = new Set([
    "AWS::IAM::Policy.PolicyName", // an inline policy, named within its role
    "AWS::Cognito::UserPoolGroup.GroupName", // named within its user pool
    "AWS::Events::Rule.EventBusName", // the account's default bus, where SES publishes for both
    "AWS::SES::ReceiptRule.RuleSetName", // existing mode: each stack adds its own rules to the one active set
    "AWS::CloudWatch::Alarm.MetricName", // a metric, told apart by its namespace (below) and dimensions
  ]);

  /** Every literal name the template gives a resource (CloudFormation, SES, SSM, CloudWatch all refuse a duplicate). */
  function namesOf(
    stackName: string,
    config: Record<string, unknown>,
  ): { names: string[]; namespaces: string[] } {
    const dir = mkdtempSync(join(tmpdir(), "postern-side-"));
    const configFile = join(dir, "postern.deploy.json");
    writeFileSync(configFile, JSON.stringify(config));
    const { app, stack } = buildApp({
      projectRoot: ROOT,
      configFile,
      outdir: join(dir, "out"),
      bundle: false,
      nag: false,
      deploy: true,
      stackName,
      env: { account: "111111111111", region: "eu-west-1" },
    });
    app.synth();
    const template = JSON.parse(readFileSync(join(dir, "out", stack.templateFile), "utf8")) as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    };
    const names: string[] = [];
    const namespaces: string[] = [];
    for (const r of Object.values(template.Resources)) {
      for (const [k, v] of Object.entries(r.Properties ?? {}))
        if (/Name$/.test(k) && typeof v === "string" && !NOT_ACCOUNT_WIDE.has(`${r.Type}.${k}`))
          names.push(`${r.Type}.${k}=${v}`);
      const transforms = r.Properties?.MetricTransformations as { MetricNamespace: string }[] | undefined;
      for (const t of transforms ?? []) namespaces.push(t.MetricNamespace);
      const alarmNamespace = r.Type === "AWS::CloudWatch::Alarm" ? r.Properties?.Namespace : undefined;
      if (typeof alarmNamespace === "string" && !alarmNamespace.startsWith("AWS/"))
        namespaces.push(alarmNamespace);
    }
    return { names, namespaces: [...new Set(namespaces)] };
  }

  it("two stack names and two configs share no resource name and no metric namespace", () => {
    const production = namesOf("Postern", {
      domains: ["agents.example.com"],
      models: [bedrock],
      outbound: { configurationSet: "postern" },
      console: { enabled: true, domainPrefix: "postern-prod-console" },
    });
    const staging = namesOf("PosternStaging", {
      domains: ["staging.agents.example.com"],
      models: [bedrock],
      outbound: { configurationSet: "postern-staging" },
      console: { enabled: true, domainPrefix: "postern-staging-console" },
    });
    expect(production.names.length).toBeGreaterThan(0);
    expect(staging.names.filter((n) => production.names.includes(n))).toEqual([]);
    expect(production.namespaces).toEqual(["Postern"]);
    expect(staging.namespaces).toEqual(["Postern/PosternStaging"]);
  }, 120_000);

  it("`-c stackName=...` names the stack `npx cdk deploy` creates", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-stackname-"));
    const config = join(dir, "postern.deploy.json");
    writeFileSync(config, JSON.stringify({ domains: ["agents.example.com"], models: [bedrock] }));
    const out = join(dir, "out");
    expect(await runApp({ config, stackName: "PosternStaging" }, out)).toBeNull();
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as {
      artifacts: Record<string, { type: string }>;
    };
    expect(
      Object.entries(manifest.artifacts)
        .filter(([, a]) => a.type === "aws:cloudformation:stack")
        .map(([name]) => name),
    ).toEqual(["PosternStaging"]);
  }, 120_000);
});

/** `infra/app.ts` as the CDK CLI runs it (context in CDK_CONTEXT_JSON; no bundling); the failure, or null. */
async function runApp(
  context: Record<string, unknown>,
  outdir = mkdtempSync(join(tmpdir(), "postern-out-")),
): Promise<{ code: number; stderr: string } | null> {
  mkdirSync(outdir, { recursive: true });
  return promisify(execFile)(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "infra/app.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      CDK_CONTEXT_JSON: JSON.stringify({ ...context, "aws:cdk:bundling-stacks": [] }),
      CDK_OUTDIR: outdir,
      CDK_DEFAULT_ACCOUNT: "111111111111",
      CDK_DEFAULT_REGION: "eu-west-1",
    },
  }).then(
    () => null,
    (e: { code: number; stderr: string }) => e,
  );
}
