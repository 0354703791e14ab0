import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../../shared/config/load.ts";

describe("postern.config.example.json", () => {
  it("is valid and documents every section", () => {
    const { config } = loadConfigFile("postern.config.example.json");
    expect(config.models.map((m) => m.provider).sort()).toEqual([
      "anthropic",
      "bedrock",
      "openai-compatible",
    ]);
    expect(config.receiptRuleSet.mode).toBe("existing");
  });
});
