import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../infra/build-app.ts";
import { chooseConfigFile, loadSynthConfig } from "../../infra/synth-config.ts";
import { ConfigError } from "../../shared/config/load.ts";
import { ROOT } from "./synth.ts";

const bedrock = {
  id: "claude",
  provider: "bedrock",
  modelId: "anthropic.claude-sonnet-4-5-20250929-v1:0",
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
    const run = promisify(execFile);
    const err = await run(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "infra/app.ts")], {
      cwd: ROOT,
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ config: configFile }),
        CDK_OUTDIR: mkdtempSync(join(tmpdir(), "postern-out-")),
      },
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(
      /postern: .*postern\.config\.json is invalid:\n {2}- domains\.1: domain agents\.example\.com is listed twice/,
    );
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

  it("postern.config.json wins over the example; neither is an error naming the fix", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-root-"));
    expect(() => chooseConfigFile(dir)).toThrow(
      /copy postern\.config\.example\.json to postern\.config\.json/,
    );
    writeFileSync(join(dir, "postern.config.example.json"), "{}");
    expect(chooseConfigFile(dir)).toBe(join(dir, "postern.config.example.json"));
    writeFileSync(join(dir, "postern.config.json"), "{}");
    expect(chooseConfigFile(dir)).toBe(join(dir, "postern.config.json"));
  });

  it("the committed example config passes the deploy checks", () => {
    expect(() => loadSynthConfig(join(ROOT, "postern.config.example.json"))).not.toThrow();
  });
});
