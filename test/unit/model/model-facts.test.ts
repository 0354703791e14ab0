import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../shared/config/load.ts";
import { bedrockBaseId, MODEL_FACTS, modelFacts, RECOMMENDED } from "../../../shared/model/model-facts.ts";

const ROOT = join(import.meta.dirname, "../../..");

describe("the model facts table", () => {
  it("finds a model by its profile id, ARN or dated alias, and a family's defaults for an unnamed model", () => {
    expect(bedrockBaseId("global.anthropic.claude-sonnet-4-6")).toBe("anthropic.claude-sonnet-4-6");
    expect(
      bedrockBaseId("arn:aws:bedrock:us-east-1:111111111111:inference-profile/eu.anthropic.claude-opus-4-7"),
    ).toBe("anthropic.claude-opus-4-7");
    expect(modelFacts("bedrock", "jp.anthropic.claude-sonnet-4-6")?.name).toBe("Claude Sonnet 4.6");
    expect(modelFacts("anthropic", "claude-sonnet-4-5-20250929")?.status).toBe("old");
    expect(modelFacts("bedrock", "us.amazon.nova-pro-v1:0")?.cacheFields).toEqual(["system", "messages"]);
    expect(modelFacts("bedrock", "anthropic.claude-haiku-9")?.minCacheTokens).toBe(4096);
    expect(modelFacts("bedrock", "meta.llama3-1-70b-instruct-v1:0")).toBeNull();
  });

  it("every row names its sources, and the example catalog names only current models", () => {
    for (const row of MODEL_FACTS) expect(row.sources.length, row.name).toBeGreaterThan(0);
    const example = parseConfig(JSON.parse(readFileSync(join(ROOT, "postern.config.example.json"), "utf8")));
    for (const m of example.models) {
      if (m.provider !== "bedrock" && m.provider !== "anthropic") continue;
      const facts = modelFacts(m.provider, m.provider === "bedrock" ? m.modelId : m.model);
      expect(facts?.status, m.id).toBe("current");
    }
    expect(example.models.map((m) => ("modelId" in m ? m.modelId : "model" in m ? m.model : ""))).toEqual(
      expect.arrayContaining([RECOMMENDED.bedrock, RECOMMENDED.anthropic]),
    );
  });

  it("docs/models.md's table says what the code's table says", () => {
    const doc = readFileSync(join(ROOT, "docs/models.md"), "utf8");
    for (const row of MODEL_FACTS) {
      const line = doc.split("\n").find((l) => l.startsWith(`| ${row.name} `));
      expect(line, row.name).toBeDefined();
      expect(line).toContain(row.minCacheTokens.toLocaleString("en-US"));
      expect(line).toContain(row.cacheFields.join(", "));
      if (row.price) expect(line).toContain(`${row.price.input} / ${row.price.output} /`);
    }
  });
});
