import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../infra/build-app.ts";
import { NO_FUNCTION_URL_REGIONS } from "../../infra/function-urls.ts";
import { SES_RECEIVING_REGIONS } from "../../infra/ses-receiving.ts";
import { CFN_LINT_VERSION, cfnLintOnPath, cfnLintPolicy } from "./cfn-lint-policy.ts";
import { FIXTURES, ROOT } from "./synth.ts";

// AWS's own linter over every shape the stack takes: cfn-lint checks each template against CloudFormation's
// resource schemas for the region it deploys to (property types, enums, patterns, resource types that exist
// there). Zero errors; every warning left is listed below with the reason it stays.

const ACCOUNT = "111111111111";
const bedrock = (modelId: string) => ({ id: "claude", provider: "bedrock", modelId, egress: "internal" });

interface Variant {
  readonly name: string;
  readonly config: string | Record<string, unknown>;
  /** No env: the environment-agnostic template, linted in every region Postern accepts. */
  readonly region?: string;
  /** Lint in these regions instead (default: `region`, or every SES receiving region). */
  readonly lintRegions?: readonly string[];
  readonly agentStepConcurrency?: number;
}

const VARIANTS: readonly Variant[] = [
  // Two domains, existing rule set, a configuration set, Bedrock by an eu. profile, a key by Secrets Manager name.
  { name: "existing-full", config: join(FIXTURES, "existing-mode.config.json"), region: "eu-west-1" },
  // Two domains, Postern's own rule set, a global. inference profile, SSM and ARN keys, a scripted model.
  { name: "create-full", config: join(FIXTURES, "create-mode.config.json"), region: "us-east-1" },
  {
    name: "existing-bare",
    config: { domains: ["agents.example.com"], models: [bedrock("amazon.nova-pro-v1:0")] },
    region: "us-west-2",
    agentStepConcurrency: 25,
  },
  {
    name: "create-one-domain",
    config: {
      domains: ["agents.example.com"],
      models: [bedrock("apac.anthropic.claude-sonnet-4-5-20250929-v1:0")],
      outbound: { configurationSet: "postern-sending" },
      receiptRuleSet: { mode: "create", name: "postern" },
    },
    region: "ap-southeast-2",
    agentStepConcurrency: 2,
  },
  { name: "env-agnostic", config: join(FIXTURES, "create-mode.config.json") },
  // The operator console on: Cognito user pool, groups, domain, client, function URL, SSM parameter.
  { name: "console", config: join(FIXTURES, "console.config.json"), region: "eu-west-1" },
  // The console without a region, in every SES receiving region, in one cfn-lint run: where Lambda has
  // no function URLs the template's rule refuses it (infra/function-urls.ts), and cfn-lint must agree on where.
  {
    name: "console-every-region",
    config: join(FIXTURES, "console.config.json"),
    lintRegions: SES_RECEIVING_REGIONS,
  },
];

/** The one error a console template may show: its function URL in a region without them, which its rule refuses. */
const noFunctionUrl = (f: Finding) =>
  f.Rule.Id === "E3006" &&
  /^Resource type 'AWS::Lambda::Url' does not exist in '([a-z0-9-]+)'$/.exec(f.Message);

/** A cfn-lint warning we keep, keyed by rule id and the resources it names; `reason` says why it stays. */
interface Allowance {
  readonly rule: string;
  readonly type: string;
  readonly resource: RegExp;
  readonly reason: string;
}

const ALLOWED: readonly Allowance[] = [
  {
    rule: "W3005",
    type: "AWS::Lambda::Function",
    // Postern's three functions, the delivery events' recorder, the webhooks worker (and the console's); in create
    // mode also the rule-set activation's onEvent and its Provider's function.
    resource:
      /^((Verify|AgentStep|Outbound|Console|DeliveryEventsRecord|WebhooksDeliver)Function|IntakeActivateRuleSet(Function|ProviderframeworkonEvent))[0-9A-F]{8}$/,
    reason:
      "aws-cdk-lib's Function lists its role beside the role's DefaultPolicy in DependsOn, so the policy is attached " +
      "before the function can run (an event source mapping polls at once); the role half repeats the Role GetAtt.",
  },
  {
    rule: "W3005",
    type: "AWS::SES::ReceiptRule",
    resource: /^IntakeRule\w+[0-9A-F]{8}$/,
    reason:
      "SES checks at CreateReceiptRule that it may publish to the topic, so each rule depends on the topic's policy; " +
      "CDK expresses that as a dependency on the Topic construct, which also lists the Topic the rule already Refs.",
  },
];

interface Finding {
  readonly Rule: { readonly Id: string };
  readonly Level: "Error" | "Warning" | "Informational";
  readonly Filename: string;
  readonly Message: string;
  readonly Location: { readonly Path: readonly (string | number)[] };
}

const resourceOf = (f: Finding): string =>
  f.Location.Path[0] === "Resources" ? String(f.Location.Path[1]) : f.Location.Path.join("/");
const describeFinding = (f: Finding) => `${f.Rule.Id} ${resourceOf(f)}: ${f.Message}`;

// A control cfn-lint must flag, so "zero findings" means the linter ran with its region data: a receipt rule set
// where CloudFormation has no such type, and the legacy log-delivery ACL this stack used to carry.
const CONTROL = {
  Resources: {
    RuleSet: { Type: "AWS::SES::ReceiptRuleSet", Properties: {} },
    Logs: {
      Type: "AWS::S3::Bucket",
      Properties: {
        AccessControl: "LogDeliveryWrite",
        OwnershipControls: { Rules: [{ ObjectOwnership: "ObjectWriter" }] },
      },
    },
  },
};

let dir: string;
/** Per variant: logical id → resource type. */
let resources: Map<string, Map<string, string>>;
let findings: Map<string, Finding[]>;

// Without cfn-lint on the PATH: on a developer's machine one test says so and the infra project's global setup
// prints one line at the end of the run (cfn-lint-setup.ts); in CI (`CI` set, as .ci/run sets it) the test fails.
const lint = cfnLintPolicy(process.env, cfnLintOnPath());
if (lint.kind !== "run") {
  it(
    lint.kind === "fail"
      ? "cfn-lint is on the PATH (CI requires it)"
      : "cfn-lint is missing here: reported, not run",
    () => {
      if (lint.kind === "fail") throw new Error(lint.message);
      expect(lint.message).toContain(`pip install cfn-lint==${CFN_LINT_VERSION}`);
    },
  );
} else {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "postern-cfn-lint-"));
    resources = new Map();
    const files = VARIANTS.map((v) => {
      const template = synthTemplate(v);
      const types = Object.entries(template.Resources as Record<string, { Type: string }>);
      resources.set(v.name, new Map(types.map(([id, r]) => [id, r.Type])));
      // Template-level cfn-lint config: each template is checked in the region(s) it can be deployed to.
      const regions = v.lintRegions ?? (v.region ? [v.region] : [...SES_RECEIVING_REGIONS]);
      return writeLintCopy(v.name, { ...template, Metadata: { "cfn-lint": { config: { regions } } } });
    });
    files.push(
      writeLintCopy("control", {
        ...CONTROL,
        Metadata: { "cfn-lint": { config: { regions: ["eu-central-2"] } } },
      }),
    );
    findings = groupByTemplate(runCfnLint(files));
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe("cfn-lint over every variant of the stack", () => {
    it("is live: flags the control's resource type missing from its region and its legacy ACL", () => {
      const ids = (findings.get("control") ?? []).map((f) => `${f.Rule.Id} ${resourceOf(f)}`);
      expect(ids).toEqual(expect.arrayContaining(["E3006 RuleSet", "W3045 Logs"]));
    });

    it.each(VARIANTS.map((v) => [v.name]))("%s: no errors, and no warning outside the allow-list", (name) => {
      const all = findings.get(name) ?? [];
      const refused = (f: Finding) => name === "console-every-region" && noFunctionUrl(f);
      expect(all.filter((f) => f.Level === "Error" && !refused(f)).map(describeFinding)).toEqual([]);
      const unexplained = all.filter((f) => !refused(f) && !ALLOWED.some((a) => allows(a, f, name)));
      expect(unexplained.map(describeFinding)).toEqual([]);
    });

    it("the console's function URL is missing in exactly the SES receiving regions our list names (and the rule refuses)", () => {
      const flagged = (findings.get("console-every-region") ?? [])
        .map((f) => noFunctionUrl(f))
        .flatMap((m) => (m ? [String(m[1])] : []))
        .sort();
      const expected = SES_RECEIVING_REGIONS.filter((r) =>
        (NO_FUNCTION_URL_REGIONS as readonly string[]).includes(r),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(flagged).toEqual([...expected].sort());
      const template = JSON.parse(readFileSync(join(dir, "console-every-region.template.json"), "utf8")) as {
        Rules?: Record<string, unknown>;
      };
      expect(Object.keys(template.Rules ?? {})).toContain("ConsoleFunctionUrlRegion");
    });

    it("every allowance is still needed, on exactly the resources it names (a new or a fixed warning fails)", () => {
      for (const a of ALLOWED) {
        expect(a.reason.length, `${a.rule} needs a reason`).toBeGreaterThan(60);
        let seen = 0;
        for (const v of VARIANTS) {
          const named = [...(resources.get(v.name) ?? [])]
            .filter(([id, type]) => type === a.type && a.resource.test(id))
            .map(([id]) => id)
            .sort();
          const flagged = (findings.get(v.name) ?? [])
            .filter((f) => allows(a, f, v.name))
            .map(resourceOf)
            .sort();
          expect(flagged, `${a.rule} ${a.resource} in ${v.name}`).toEqual(named);
          seen += flagged.length;
        }
        expect(seen, `${a.rule} ${a.resource} matches nothing any more: drop it`).toBeGreaterThan(0);
      }
    });
  });
}

/** The allowance covers this finding of the variant's template: its rule, on a resource of its type and name. */
const allows = (a: Allowance, f: Finding, variant: string) =>
  f.Level === "Warning" &&
  f.Rule.Id === a.rule &&
  resources.get(variant)?.get(resourceOf(f)) === a.type &&
  a.resource.test(resourceOf(f));

function synthTemplate(v: Variant): Record<string, unknown> {
  const outdir = join(dir, `${v.name}.out`);
  let configFile = v.config as string;
  if (typeof v.config !== "string") {
    configFile = join(mkdtempSync(join(dir, "config-")), "postern.config.json");
    writeFileSync(configFile, JSON.stringify(v.config));
  }
  const { app, stack } = buildApp({
    projectRoot: ROOT,
    configFile,
    outdir,
    bundle: false,
    nag: false,
    ...(v.region ? { env: { account: ACCOUNT, region: v.region } } : {}),
    ...(v.agentStepConcurrency ? { agentStepConcurrency: v.agentStepConcurrency } : {}),
  });
  app.synth();
  return JSON.parse(readFileSync(join(outdir, stack.templateFile), "utf8")) as Record<string, unknown>;
}

function writeLintCopy(name: string, template: unknown): string {
  const file = join(dir, `${name}.template.json`);
  writeFileSync(file, JSON.stringify(template, null, 1));
  return file;
}

/** One cfn-lint process for all templates (it starts slowly; each template carries its own regions). */
function runCfnLint(files: readonly string[]): Finding[] {
  const run = spawnSync("cfn-lint", ["--format", "json", "--non-zero-exit-code", "none", "--", ...files], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
    throw new Error(
      "cfn-lint is not on the PATH. Install AWS's CloudFormation linter with `pip install cfn-lint` " +
        "(CI runs 1.51.0: `pip install cfn-lint==1.51.0`), then run this test again.",
    );
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`cfn-lint failed (exit ${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout) as Finding[];
}

function groupByTemplate(all: readonly Finding[]): Map<string, Finding[]> {
  const byName = new Map<string, Finding[]>();
  for (const f of all) {
    const name = basename(f.Filename).replace(/\.template\.json$/, "");
    byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  return byName;
}
