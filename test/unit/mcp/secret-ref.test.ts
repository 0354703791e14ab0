import { describe, expect, it } from "vitest";
import { credentialRef, mcpSecretLookup } from "../../../shared/mcp/registration.ts";

// An MCP server's credential reference is read by the one secrets syntax (shared/secrets/reference.ts), not by a
// pattern of its own; the bare env-var name of older registrations still resolves for one release.

describe("an MCP server's secret reference", () => {
  it("reads the one syntax: a secretsmanager: reference is a secret, env:VAR an env var", () => {
    expect(credentialRef("secretsmanager:postern/mcp/crm")).toEqual({
      secret: "secretsmanager:postern/mcp/crm",
    });
    expect(credentialRef("env:CRM_TOKEN")).toEqual({ env: "CRM_TOKEN" });
  });

  it("keeps the older forms: a bare upper-case name is an env var, an ARN a secret id", () => {
    expect(credentialRef("CRM_TOKEN")).toEqual({ env: "CRM_TOKEN" });
    const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:postern/mcp/crm-AbCdEf";
    expect(credentialRef(arn)).toEqual({ secret: arn });
  });

  it("hands the parsed reference to the secret source", async () => {
    const asked: unknown[] = [];
    const lookup = mcpSecretLookup({
      get: async (ref) => {
        asked.push(ref);
        return "v";
      },
    });
    expect(await lookup("env:CRM_TOKEN")).toBe("v");
    expect(asked).toEqual([{ env: "CRM_TOKEN" }]);
  });
});
