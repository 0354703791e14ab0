import { describe, expect, it } from "vitest";
import type { AgentItem } from "../../../shared/admin/schema.ts";
import { drop, type Known, refusal } from "../../../shared/gate/decision.ts";
import type { SenderProof } from "../../../shared/gate/sender-proof.ts";

const agent = { address: "helpdesk@agents.example.net" } as AgentItem;
const proven: SenderProof = {
  ok: true,
  address: "Alice+Orders@Example.com",
  routingKey: "alice@example.com",
  domain: "example.com",
  displayName: "Alice",
  signature: { id: "b", domain: "example.com", selector: "s", algorithm: "rsa-sha256", signedHeaders: [] },
  signedRecipients: { to: [], cc: [], refused: [] },
  via: { kind: "dkim" },
};
const unproven: SenderProof = { ok: false, reason: "dkim-none", address: "mallory@evil.example" };
const known = (over: Partial<Known> = {}): Known => ({ proof: null, automatic: false, hop: 0, ...over });

describe("refusal: says no more about the sender than was proven (G6)", () => {
  it("names a proven sender by its routing key, and notifies it", () => {
    expect(refusal(known({ proof: proven, hop: 2 }), "helpdesk@x", agent, "access-denied")).toEqual({
      verdict: "refuse",
      recipient: "helpdesk@x",
      agent,
      reason: "access-denied",
      sender: "alice@example.com",
      proven: true,
      notify: true,
      hop: 2,
    });
  });

  it("names an unproven sender by the reduced From address, and never notifies it", () => {
    expect(refusal(known({ proof: unproven }), "helpdesk@x", agent, "dkim-none")).toMatchObject({
      sender: "mallory@evil.example",
      proven: false,
      notify: false,
    });
    expect(refusal(known(), "helpdesk@x", agent, "message-too-large")).toMatchObject({
      sender: null,
      proven: false,
      notify: false,
    });
  });

  it("never notifies automatic mail, even from a proven sender", () => {
    const r = refusal(known({ proof: proven, automatic: true }), "helpdesk@x", agent, "access-denied");
    expect(r).toMatchObject({ proven: true, notify: false });
  });

  it("carries the route's hop when given one, else the inbound hop", () => {
    expect(refusal(known({ hop: 4 }), "helpdesk@x", agent, "access-denied").hop).toBe(4);
    expect(refusal(known({ hop: 4 }), "helpdesk@x", agent, "access-denied", 7).hop).toBe(7);
  });
});

describe("drop: never notified", () => {
  it("is silent even for a proven sender of mail that is not automatic", () => {
    expect(drop(known({ proof: proven }), "helpdesk@x", agent, "list-mail")).toMatchObject({
      verdict: "drop",
      reason: "list-mail",
      sender: "alice@example.com",
      proven: true,
      notify: false,
    });
  });
});
