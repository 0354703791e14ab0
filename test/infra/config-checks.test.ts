import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Template } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../infra/build-app.ts";
import { SES_RECEIVING_REGIONS, sesReceivingProblem } from "../../infra/ses-receiving.ts";
import { loadSynthConfig } from "../../infra/synth-config.ts";
import { ConfigError } from "../../shared/config/load.ts";
import { ROOT } from "./synth.ts";

const bedrock = {
  id: "claude",
  provider: "bedrock",
  modelId: "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
  egress: "internal",
};
const base = { domains: ["agents.example.com"], models: [bedrock] };

function writeConfig(doc: unknown, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "postern-cfg-"));
  for (const [name, text] of Object.entries(extra)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const file = join(dir, "postern.config.json");
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** Synth of this config must fail before any construct exists, with a message naming the field and the fix. */
function synthFails(doc: unknown, extra?: Record<string, string>): string {
  const configFile = writeConfig(doc, extra);
  try {
    buildApp({ projectRoot: ROOT, configFile, bundle: false, nag: false });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("synth succeeded");
}

describe("synth rejects unsafe configs with an actionable message", () => {
  it("a domain listed twice", () => {
    expect(synthFails({ ...base, domains: ["agents.example.com", "agents.example.com"] })).toMatch(
      /domains\.1: domain agents\.example\.com is listed twice/,
    );
  });

  it("a domain that is not a lower-case A-label domain", () => {
    expect(synthFails({ ...base, domains: ["Agents.Example.com"] })).toMatch(
      /domains\.0: must be a lower-case domain/,
    );
    expect(synthFails({ ...base, domains: ["bücher.example"] })).toMatch(/xn--/);
  });

  it("a key env-var name not ending in _API_KEY/_KEY/_TOKEN", () => {
    const model = {
      id: "o",
      provider: "openai-compatible",
      baseUrl: "https://api.openai.com/v1",
      model: "m",
    };
    expect(
      synthFails({ ...base, models: [{ ...model, egress: "external", apiKeyEnv: "OPENAI_SECRET" }] }),
    ).toMatch(/models\.0\.apiKeyEnv: must be an upper-case env-var name ending in _API_KEY, _KEY or _TOKEN/);
  });

  it("an outside API marked internal (Anthropic, a public OpenAI-compatible endpoint)", () => {
    const anthropic = {
      id: "a",
      provider: "anthropic",
      model: "m",
      apiKeySecret: "secretsmanager:k",
      egress: "internal",
    };
    expect(synthFails({ ...base, models: [anthropic] })).toMatch(
      /models\.0\.egress: .*set "egress": "external"/,
    );
    const openai = {
      id: "o",
      provider: "openai-compatible",
      baseUrl: "https://api.openai.com/v1",
      model: "m",
      egress: "internal",
    };
    expect(synthFails({ ...base, models: [openai] })).toMatch(
      /is a public endpoint: set "egress": "external"/,
    );
  });

  it("a model key in an env var, which in Lambda would be a plain-text setting (G16)", () => {
    const m = {
      id: "a",
      provider: "anthropic",
      model: "m",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      egress: "external",
    };
    expect(synthFails({ ...base, models: [m] })).toMatch(
      /"apiKeyEnv" cannot be used in AWS.*"apiKeySecret": "secretsmanager:postern\/a"/,
    );
  });

  it("a scripted model whose script is missing or outside the config directory", () => {
    const scripted = (script: string) => ({
      ...base,
      models: [{ id: "s", provider: "scripted", script, egress: "internal" }],
    });
    expect(synthFails(scripted("missing.json"))).toMatch(
      /models\.0 \(s\)\.script: .*missing\.json does not exist/,
    );
    expect(synthFails(scripted("../outside.json"))).toMatch(
      /is outside the config directory; move the script next to it/,
    );
    expect(synthFails(scripted("/etc/hostname"))).toMatch(/is outside the config directory/);
  });

  it("SES and Bedrock names AWS would reject at deploy time", () => {
    expect(synthFails({ ...base, receiptRuleSet: { mode: "existing", name: "my set" } })).toMatch(
      /receiptRuleSet\.name: my set is not a valid SES rule set name/,
    );
    expect(synthFails({ ...base, outbound: { configurationSet: "a.b" } })).toMatch(
      /outbound\.configurationSet: a\.b is not a valid SES configuration set name/,
    );
    expect(synthFails({ ...base, models: [{ ...bedrock, modelId: "Claude Sonnet" }] })).toMatch(
      /modelId: Claude Sonnet is not a Bedrock model id/,
    );
    expect(synthFails({ ...base, models: [{ ...bedrock, region: "Frankfurt" }] })).toMatch(
      /region: Frankfurt is not an AWS region name/,
    );
  });

  it("names every deploy problem at once", () => {
    const msg = synthFails({
      ...base,
      receiptRuleSet: { name: "-x" },
      outbound: { configurationSet: "a.b" },
    });
    expect(msg).toMatch(/receiptRuleSet\.name: -x/);
    expect(msg).toMatch(/outbound\.configurationSet: a\.b/);
  });

  it("the infra/app.ts process exits 1 with the problem on stderr (what `npx cdk synth` shows)", async () => {
    const configFile = writeConfig({ ...base, domains: ["agents.example.com", "agents.example.com"] });
    const err = await runApp(configFile, { CDK_DEFAULT_REGION: "eu-west-1" });
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(
      /postern: .*postern\.config\.json is invalid:\n {2}- domains\.1: domain agents\.example\.com is listed twice/,
    );
  });
});

describe("synth refuses a region where SES does not receive email", () => {
  const env = (region: string) => ({ account: "111111111111", region });

  it("names the region, every region that receives, and AWS's endpoint list", () => {
    const configFile = writeConfig(base);
    const synthIn = (region: string) => () =>
      buildApp({ projectRoot: ROOT, configFile, bundle: false, nag: false, env: env(region) });
    // SES sends from these regions but has no inbound endpoint there; the MX record would point nowhere.
    for (const region of ["eu-central-2", "ap-south-2", "us-gov-west-1", "cn-north-1"]) {
      expect(synthIn(region)).toThrow(ConfigError);
      expect(synthIn(region)).toThrow(
        new RegExp(
          `region ${region}: SES does not receive email there.*eu-west-1.*us-west-2.*ses_inbound_endpoints`,
        ),
      );
    }
    for (const region of SES_RECEIVING_REGIONS) expect(sesReceivingProblem(region)).toBeUndefined();
  });

  it("an environment-agnostic stack carries a template Rule that stops the deploy before any resource", () => {
    const configFile = writeConfig(base);
    const rules = (region?: string) => {
      const { stack } = buildApp({
        projectRoot: ROOT,
        configFile,
        bundle: false,
        nag: false,
        ...(region ? { env: env(region) } : {}),
      });
      return (Template.fromStack(stack).toJSON().Rules ?? {}) as Record<string, unknown>;
    };
    expect(rules().SesReceivingRegion).toEqual({
      Assertions: [
        {
          Assert: { "Fn::Contains": [[...SES_RECEIVING_REGIONS], { Ref: "AWS::Region" }] },
          AssertDescription: expect.stringMatching(/SES email receiving.*eu-west-1.*ses_inbound_endpoints/),
        },
      ],
    });
    // A stack with a known region was already checked at synth.
    expect(rules("eu-west-1").SesReceivingRegion).toBeUndefined();
  });

  it("infra/app.ts exits 1 naming the region the CLI passed (CDK_DEFAULT_REGION)", async () => {
    const err = await runApp(writeConfig(base), { CDK_DEFAULT_REGION: "eu-central-2" });
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(
      /postern: the target AWS environment is invalid:\n {2}- region eu-central-2: SES does not receive email/,
    );
  });
});

/** Run `infra/app.ts` as the CDK CLI would; resolves to the failure (null when synth succeeded). */
async function runApp(
  configFile: string,
  env: Record<string, string>,
): Promise<{ code: number; stderr: string } | null> {
  return promisify(execFile)(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "infra/app.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      CDK_CONTEXT_JSON: JSON.stringify({ config: configFile }),
      CDK_OUTDIR: mkdtempSync(join(tmpdir(), "postern-out-")),
      CDK_DEFAULT_ACCOUNT: "111111111111",
      ...env,
    },
  }).then(
    () => null,
    (e: { code: number; stderr: string }) => e,
  );
}

describe("synth refuses an inference profile the target region does not offer", () => {
  const env = (region: string) => ({ account: "111111111111", region });
  const withModel = (modelId: string) => writeConfig({ ...base, models: [{ ...bedrock, modelId }] });
  it("a us. profile called from eu-west-1 would name a profile that does not exist there", () => {
    const synthIn = (modelId: string, region: string) => () =>
      buildApp({
        projectRoot: ROOT,
        configFile: withModel(modelId),
        bundle: false,
        nag: false,
        env: env(region),
      });
    expect(synthIn("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "eu-west-1")).toThrow(
      /inference profile us\.anthropic\.claude-sonnet-4-5-20250929-v1:0 is not offered in eu-west-1; use .*eu\.anthropic/,
    );
    for (const [modelId, region] of [
      ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "us-west-2"],
      ["eu.anthropic.claude-sonnet-4-5-20250929-v1:0", "eu-west-1"],
      ["apac.anthropic.claude-sonnet-4-5-20250929-v1:0", "ap-southeast-2"],
      ["global.anthropic.claude-sonnet-4-5-20250929-v1:0", "sa-east-1"],
    ] as const)
      expect(synthIn(modelId, region)).not.toThrow();
  });
});

describe("valid configs", () => {
  it("an empty inbound ceiling is valid (it admits everyone; per-agent rules narrow it)", () => {
    const loaded = loadSynthConfig(writeConfig({ ...base, inboundAccess: [] }));
    expect(loaded.loaded.config.inboundAccess).toEqual([]);
  });

  it("ships a scripted model's script and warns about a loopback model server", () => {
    const doc = {
      ...base,
      models: [
        { id: "s", provider: "scripted", script: "scripts/demo.json", egress: "internal" },
        {
          id: "l",
          provider: "openai-compatible",
          baseUrl: "http://127.0.0.1:11434/v1",
          model: "m",
          egress: "internal",
        },
      ],
    };
    const c = loadSynthConfig(writeConfig(doc, { "scripts/demo.json": '{"turns":[{"text":"hi"}]}' }));
    expect(c.scripts).toEqual(["scripts/demo.json"]);
    expect(c.warnings.join("\n")).toMatch(/loopback address, unreachable from Lambda/);
  });

  it("the committed example config passes the deploy checks; it names no old model", () => {
    const { warnings } = loadSynthConfig(join(ROOT, "postern.config.example.json"));
    // its local Ollama entry is a loopback address, which warns; no model of it is old
    expect(warnings).toEqual([
      "models.1 (local): http://127.0.0.1:11434/v1 is a loopback address, unreachable from Lambda (fine for npm start)",
    ]);
  });

  it("warns on a model the facts table marks old (shared/model/model-facts.ts), on either service", () => {
    const direct = {
      id: "direct",
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      apiKeySecret: "secretsmanager:postern/anthropic",
      egress: "external",
    };
    const current = { ...bedrock, id: "current", modelId: "global.anthropic.claude-sonnet-4-6" };
    const c = loadSynthConfig(writeConfig({ ...base, models: [bedrock, direct, current] }));
    expect(c.warnings).toEqual([
      "models.0 (claude): global.anthropic.claude-sonnet-4-5-20250929-v1:0 is Claude Sonnet 4.5, retired from the Claude API on 2026-11-30, and Legacy on Bedrock (new accounts cannot use it): use Claude Sonnet 4.6; run `postern doctor`",
      "models.1 (direct): claude-sonnet-4-5-20250929 is Claude Sonnet 4.5, retired from the Claude API on 2026-11-30, and Legacy on Bedrock (new accounts cannot use it): use Claude Sonnet 4.6; run `postern doctor`",
    ]);
  });
});
