// The deployment config's sender-proof options reach the proof through the gate: ARC sealers the operator trusts
// and the signer it vouches for per From domain. What the gate then does with an ARC-proven sender (addressing,
// the narrowed run) is the gate's own rule; here only which proof was made.

import { beforeAll, describe, expect, it } from "vitest";
import type { AdminSnapshot, AgentItem } from "../../../shared/admin/schema.ts";
import { parseConfig } from "../../../shared/config/load.ts";
import { gateMessage } from "../../../shared/gate/gate.ts";
import { asListRewrites, seal } from "../../helpers/arc-seal.ts";
import {
  buildMessage,
  resolverFor,
  signWith,
  type TestKeys,
  testKeys,
  zoneFor,
} from "../../helpers/dkim-test-keys.ts";

const NOW = new Date("2026-11-29T12:00:00Z");
const LIST = "lists.example.org";
const agent: AgentItem = {
  address: "helpdesk@agents.example.net",
  name: "Agent",
  model: "demo",
  instructions: "",
  acceptAutoSubmitted: false,
  acceptListMail: true,
  acceptBcc: true,
  requireSignedAddressing: false,
  enabled: true,
};
const admin: AdminSnapshot = {
  agents: [agent],
  accessRules: [],
  outboundRules: [],
  toolkits: [],
  responsibilities: [],
  approvers: [],
  webhooks: [],
  mcpServers: [],
};

let keys: TestKeys;
beforeAll(async () => {
  keys = await testKeys();
});

async function gate(raw: Buffer, senderProof: Record<string, unknown>, a: AgentItem = agent) {
  const config = parseConfig({
    domains: ["agents.example.net"],
    models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
    senderProof,
  });
  const result = await gateMessage({
    raw,
    envelope: { sesMessageId: "m1", recipients: [agent.address], mailFrom: "bounces@lists.example.org" },
    config,
    admin: { ...admin, agents: [a] },
    resolver: resolverFor(zoneFor(keys, ["example.com", LIST, "contoso.onmicrosoft.com"])),
    now: NOW,
    sentMail: async () => [],
  });
  return result;
}

async function proofOf(raw: Buffer, senderProof: Record<string, unknown>) {
  const p = (await gate(raw, senderProof)).proof;
  return p === null ? "not proven" : p.ok ? p.via : p.reason;
}

describe("sender-proof options through the gate", () => {
  it("proves a list mail by ARC only when the config trusts the list's sealer", async () => {
    const signed = await signWith(keys, "rsa2048", buildMessage({ to: `team@${LIST}` }), {
      domain: "example.com",
    });
    const raw = await seal(keys, asListRewrites(signed), {
      domain: LIST,
      authResults: `${LIST}; dkim=pass header.d=example.com`,
    });
    expect(await proofOf(raw, {})).toBe("dkim-body-modified");
    expect(await proofOf(raw, { trustedArcSealers: [LIST] })).toEqual({
      kind: "arc",
      sealer: LIST,
      instances: 1,
    });
  });

  it("proves a tenant-signed mail only when the config vouches for the tenant's signer", async () => {
    const raw = await signWith(keys, "rsa2048", buildMessage({ from: "Alice <alice@contoso.com>" }), {
      domain: "contoso.onmicrosoft.com",
    });
    expect(await proofOf(raw, {})).toBe("dkim-misaligned");
    expect(await proofOf(raw, { delegatedSigners: { "contoso.com": "contoso.onmicrosoft.com" } })).toEqual({
      kind: "dkim",
      delegated: "contoso.onmicrosoft.com",
    });
  });
});

describe("an ARC-proven sender at the gate", () => {
  // The agent takes no Bcc here: only the trusted forwarder's delivery can address it.
  const strict: AgentItem = { ...agent, acceptBcc: false };
  const listMail = async () => {
    const signed = await signWith(keys, "rsa2048", buildMessage({ to: `team@${LIST}` }), {
      domain: "example.com",
    });
    return seal(keys, asListRewrites(signed), {
      domain: LIST,
      authResults: `${LIST}; dkim=pass header.d=example.com`,
    });
  };

  it("is addressed by the trusted forwarder's delivery: accepted as forwarded, a narrowed run", async () => {
    const [d] = (await gate(await listMail(), { trustedArcSealers: [LIST] }, strict)).decisions;
    expect(d).toMatchObject({
      verdict: "accept",
      addressing: { kind: "forwarded", sealer: LIST },
      sender: { address: "alice@example.com", via: { kind: "arc", sealer: LIST } },
    });
  });

  it("is refused by an agent that requires signed addressing, and by an untrusted sealer", async () => {
    const required = { ...strict, requireSignedAddressing: true };
    const [d] = (await gate(await listMail(), { trustedArcSealers: [LIST] }, required)).decisions;
    expect(d).toMatchObject({
      verdict: "refuse",
      reason: "not-addressed",
      detail: "signed-addressing-required",
    });
    const [u] = (await gate(await listMail(), { trustedArcSealers: ["other.example"] }, strict)).decisions;
    expect(u).toMatchObject({ verdict: "refuse", reason: "arc-untrusted-sealer" });
  });
});
