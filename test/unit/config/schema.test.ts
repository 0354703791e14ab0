import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfigFile, parseConfig, resolveConfigPath } from "../../../shared/config/load.ts";

const minimum = {
  domains: ["shopping.example.net"],
  inboundAccess: [{ pattern: "*@attacker.example", effect: "deny" }],
  recursionLimit: 50,
  maxToolTurns: 8,
  models: [{ id: "demo", provider: "scripted", script: "demo-script.json", egress: "internal" }],
};

function problems(raw: unknown): string[] {
  try {
    parseConfig(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).problems];
  }
  throw new Error("expected the config to be rejected");
}

describe("deployment config schema", () => {
  it("accepts the documented minimum and fills defaults", () => {
    const cfg = parseConfig(minimum);
    expect(cfg.domains).toEqual(["shopping.example.net"]);
    expect(cfg.attachments.maxAttachments).toBe(10);
    expect(cfg.egress.externalRecordContent).toBe(false);
    expect(cfg.receiptRuleSet.mode).toBe("existing");
  });

  it("accepts every documented model shape", () => {
    const cfg = parseConfig({
      ...minimum,
      models: [
        { id: "demo", provider: "scripted", script: "demo-script.json", egress: "internal" },
        {
          id: "local",
          provider: "openai-compatible",
          baseUrl: "http://127.0.0.1:11434/v1",
          model: "llama3.1",
          egress: "internal",
        },
        {
          id: "claude",
          provider: "bedrock",
          modelId: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
          egress: "internal",
        },
        {
          id: "direct",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          apiKeyEnv: "ANTHROPIC_API_KEY",
          egress: "external",
        },
      ],
    });
    expect(cfg.models.map((m) => m.provider)).toEqual([
      "scripted",
      "openai-compatible",
      "bedrock",
      "anthropic",
    ]);
  });

  it.each([
    [{ ...minimum, domains: [] }, "domains"],
    [{ ...minimum, domains: ["Shopping.Example.NET"] }, "domains.0"],
    [{ ...minimum, domains: ["a.example", "a.example"] }, "domains.1"],
    [{ ...minimum, inboundAccess: [{ pattern: "*@*.example", effect: "deny" }] }, "inboundAccess.0.pattern"],
    [{ ...minimum, inboundAccess: [{ pattern: "x@y.example", effect: "maybe" }] }, "inboundAccess.0.effect"],
    [{ ...minimum, recursionLimit: 0 }, "recursionLimit"],
    [{ ...minimum, models: [{ id: "demo", provider: "scripted", egress: "internal" }] }, "models.0.script"],
    [{ ...minimum, models: [{ ...minimum.models[0], egress: "nearby" }] }, "models.0.egress"],
    [
      {
        ...minimum,
        models: [{ id: "d", provider: "anthropic", model: "m", apiKeyEnv: "ANTHROPIC", egress: "external" }],
      },
      "models.0.apiKeyEnv",
    ],
    [
      { ...minimum, models: [{ id: "d", provider: "anthropic", model: "m", egress: "internal" }] },
      "models.0.egress",
    ],
    [
      {
        ...minimum,
        models: [
          {
            id: "d",
            provider: "openai-compatible",
            baseUrl: "https://api.example.com/v1",
            model: "m",
            egress: "internal",
          },
        ],
      },
      "models.0.egress",
    ],
    // Claude 3.7 and later are invoked on Bedrock only through inference profiles.
    ...[
      "anthropic.claude-sonnet-4-5-20250929-v1:0",
      "anthropic.claude-3-7-sonnet-20250219-v1:0",
      "anthropic.claude-opus-4-1-20250805-v1:0",
    ].map((modelId): [unknown, string] => [
      { ...minimum, models: [{ id: "c", provider: "bedrock", modelId, egress: "internal" }] },
      "models.0.modelId",
    ]),
    [{ ...minimum, defaultModel: "nope" }, "defaultModel"],
    [{ ...minimum, surprise: true }, "(top level)"],
  ])("rejects a bad file naming the field (%#)", (raw, field) => {
    const found = problems(raw);
    expect(
      found.some((p) => p.startsWith(`${field}:`)),
      found.join("\n"),
    ).toBe(true);
  });

  it("accepts Claude through an inference profile, and older Claude by its foundation-model id", () => {
    for (const modelId of [
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "global.anthropic.claude-haiku-4-5-20251001-v1:0",
      "arn:aws:bedrock:us-east-1:111111111111:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "anthropic.claude-3-5-sonnet-20240620-v1:0",
    ])
      expect(
        parseConfig({ ...minimum, models: [{ id: "c", provider: "bedrock", modelId, egress: "internal" }] })
          .models[0],
      ).toMatchObject({ modelId });
  });

  it("loads a file and resolves paths relative to it", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-config-"));
    const file = join(dir, "postern.config.json");
    writeFileSync(file, JSON.stringify(minimum));
    const loaded = loadConfigFile(file);
    expect(resolveConfigPath(loaded, "demo-script.json")).toBe(join(dir, "demo-script.json"));
  });

  it("names the file when it is not JSON", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-config-"));
    const file = join(dir, "postern.config.json");
    writeFileSync(file, "{ nope");
    expect(() => loadConfigFile(file)).toThrow(/postern.config.json is invalid:\n {2}- .*not valid JSON/);
  });

  it("says where the JSON breaks: line and column first", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-config-"));
    const file = join(dir, "postern.config.json");
    writeFileSync(file, '{\n  "domains": ["a.example"],\n  "models" []\n}\n');
    expect(() => loadConfigFile(file)).toThrow(
      /postern.config.json is invalid:\n {2}- line 3 column 12: not valid JSON \(Expected ':' after property name\)/,
    );
  });
});
