import { describe, expect, it } from "vitest";
import { isSecretName, parseSecretReference } from "../../../shared/secrets/reference.ts";

describe("parseSecretReference", () => {
  it("reads a secretsmanager: name under postern/", () => {
    expect(parseSecretReference("secretsmanager:postern/models/anthropic")).toEqual({
      ok: true,
      ref: { kind: "secret", name: "postern/models/anthropic" },
    });
  });

  it("reads the deprecated env: form", () => {
    expect(parseSecretReference("env:ANTHROPIC_API_KEY")).toEqual({
      ok: true,
      ref: { kind: "env", variable: "ANTHROPIC_API_KEY" },
    });
  });

  it.each([
    ["", "reference-empty"],
    ["   ", "reference-empty"],
    ["ssm:/postern/x", "reference-scheme"],
    ["postern/models/x", "reference-scheme"],
    ["secretsmanager:other/x", "reference-namespace"],
    ["secretsmanager:postern/", "reference-name"],
    ["secretsmanager:postern//x", "reference-name"],
    ["secretsmanager:postern/../x", "reference-name"],
    ["secretsmanager:postern/a b", "reference-name"],
    ["env:1BAD", "reference-name"],
    ["env:", "reference-name"],
  ])("refuses %j with %s", (text, reason) => {
    const r = parseSecretReference(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe(reason);
      expect(r.detail.length).toBeGreaterThan(0);
    }
  });

  it("isSecretName is the parser on a bare name", () => {
    expect(isSecretName("postern/mcp/crm")).toBe(true);
    expect(isSecretName("mcp/crm")).toBe(false);
  });
});
