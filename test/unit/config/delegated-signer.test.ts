// Which signer an operator may vouch for, per From domain (G2): only a name whose shape proves it belongs to one
// customer. Checked when the deployment config loads.

import { describe, expect, it } from "vitest";
import { delegationRefusal } from "../../../shared/config/delegated-signer.ts";
import { ConfigError, parseConfig } from "../../../shared/config/load.ts";

const minimum = {
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "demo-script.json", egress: "internal" }],
};

describe("delegationRefusal", () => {
  it.each([
    ["contoso.com", "contoso.onmicrosoft.com"],
    ["contoso.com", "mail.contoso.com"],
    ["contoso.com", "eu.mail.contoso.com"],
    ["contoso.com", "contoso-com.20230601.gappssmtp.com"],
    ["contoso.co.uk", "contoso-co-uk.20150623.gappssmtp.com"],
  ])("vouches for %s signed by %s (one customer's name)", (from, signer) => {
    expect(delegationRefusal(from, signer)).toBeNull();
  });

  it.each([
    // providers' own domains: they sign for every customer
    ["contoso.com", "onmicrosoft.com"],
    ["contoso.com", "gappssmtp.com"],
    ["contoso.com", "amazonses.com"],
    ["contoso.com", "sendgrid.net"],
    ["contoso.com", "mailgun.org"],
    ["contoso.com", "outlook.com"],
    ["contoso.com", "gmail.com"],
    ["contoso.com", "google.com"],
    // near shapes
    ["contoso.com", "a.contoso.onmicrosoft.com"],
    ["contoso.com", "20230601.gappssmtp.com"],
    ["contoso.com", "fabrikam-com.20230601.gappssmtp.com"],
    ["contoso.com", "contoso-com.2023.gappssmtp.com"],
    ["contoso.com", "contoso-com.20230601.gappssmtp.com.evil.example"],
    ["contoso.com", "evilcontoso.com"],
    ["contoso.com", "contoso.com.evil.example"],
    ["mail.contoso.com", "contoso.com"],
  ])("refuses %s signed by %s as shared", (from, signer) => {
    expect(delegationRefusal(from, signer)).toBe("signer-shared");
  });

  it("refuses the From domain itself: it is aligned already", () => {
    expect(delegationRefusal("contoso.com", "contoso.com")).toBe("signer-is-from-domain");
  });
});

describe("senderProof.delegatedSigners in the deployment config", () => {
  const problems = (delegatedSigners: unknown): string[] => {
    try {
      parseConfig({ ...minimum, senderProof: { delegatedSigners } });
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return [...(err as ConfigError).problems];
    }
  };

  it("delegates nothing by default", () => {
    expect(parseConfig(minimum).senderProof.delegatedSigners).toEqual({});
  });

  it("accepts a tenant's own signer", () => {
    expect(problems({ "contoso.com": "contoso.onmicrosoft.com" })).toEqual([]);
  });

  it("refuses a shared signer at load, naming the domain and the rule", () => {
    const [problem, ...rest] = problems({ "contoso.com": "onmicrosoft.com" });
    expect(rest).toEqual([]);
    expect(problem).toContain("contoso.com");
    expect(problem).toContain("onmicrosoft.com is not a name that belongs to one customer");
  });

  it("refuses names that are no lower-case A-labels", () => {
    expect(problems({ "Contoso.com": "contoso.onmicrosoft.com" })).not.toEqual([]);
    expect(problems({ "contoso.com": "Contoso.onmicrosoft.com" })).not.toEqual([]);
  });
});
