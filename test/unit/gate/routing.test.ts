import { describe, expect, it } from "vitest";
import { type AgentItem, agentItem } from "../../../shared/admin/schema.ts";
import { routeRecipients } from "../../../shared/gate/routing.ts";

const agent = (address: string, extra: Partial<AgentItem> = {}): AgentItem =>
  agentItem.parse({ address, name: address, model: "demo", ...extra });

const domains = ["agents.example.com", "xn--bcher-kva.example"];
const helpdesk = agent("helpdesk@agents.example.com");
const sales = agent("sales@agents.example.com");
const off = agent("off@agents.example.com", { enabled: false });
const idn = agent("info@xn--bcher-kva.example");
const elsewhere = agent("helpdesk@unregistered.example.org");
const agents = [helpdesk, sales, off, idn, elsewhere];

describe("routeRecipients (G1)", () => {
  it("maps an envelope recipient to its agent", () => {
    expect(routeRecipients(["helpdesk@agents.example.com"], domains, agents)).toEqual([
      {
        kind: "agent",
        recipient: "helpdesk@agents.example.com",
        key: "helpdesk@agents.example.com",
        agent: helpdesk,
      },
    ]);
  });

  it("matches case-insensitively and ignores a +tag", () => {
    const [route] = routeRecipients(["HelpDesk+urgent@Agents.Example.COM"], domains, agents);
    expect(route).toMatchObject({
      kind: "agent",
      agent: helpdesk,
      recipient: "HelpDesk+urgent@Agents.Example.COM",
    });
  });

  it("refuses an unknown local part at a registered domain", () => {
    expect(routeRecipients(["nobody@agents.example.com"], domains, agents)).toEqual([
      {
        kind: "unknown",
        recipient: "nobody@agents.example.com",
        key: "nobody@agents.example.com",
        reason: "unknown-recipient",
      },
    ]);
    expect(routeRecipients(["+x@agents.example.com"], domains, agents)).toMatchObject([
      { kind: "unknown", reason: "unknown-recipient" },
    ]);
  });

  it("refuses a disabled agent", () => {
    expect(routeRecipients(["off@agents.example.com"], domains, agents)).toMatchObject([
      { kind: "unknown", reason: "agent-disabled" },
    ]);
  });

  it("marks other domains foreign, even where an agent item names them", () => {
    expect(
      routeRecipients(
        ["helpdesk@unregistered.example.org", "helpdesk@sub.agents.example.com"],
        domains,
        agents,
      ),
    ).toEqual([
      {
        kind: "foreign",
        recipient: "helpdesk@unregistered.example.org",
        key: "helpdesk@unregistered.example.org",
      },
      {
        kind: "foreign",
        recipient: "helpdesk@sub.agents.example.com",
        key: "helpdesk@sub.agents.example.com",
      },
    ]);
    expect(routeRecipients(["no-at-sign", "trailing@"], domains, agents).map((r) => r.kind)).toEqual([
      "foreign",
      "foreign",
    ]);
  });

  it("compares an IDN recipient domain as its A-label", () => {
    expect(routeRecipients(["info@Bücher.example"], domains, agents)).toMatchObject([
      { kind: "agent", agent: idn, key: "info@xn--bcher-kva.example" },
    ]);
  });

  it("gives one decision per agent and independent decisions to two agents", () => {
    const routes = routeRecipients(
      [
        "helpdesk@agents.example.com",
        "Helpdesk+a@agents.example.com",
        "sales@agents.example.com",
        "nobody@agents.example.com",
        "NOBODY@agents.example.com",
      ],
      domains,
      agents,
    );
    expect(routes.map((r) => [r.kind, r.key])).toEqual([
      ["agent", "helpdesk@agents.example.com"],
      ["agent", "sales@agents.example.com"],
      ["unknown", "nobody@agents.example.com"],
    ]);
  });

  it("routes on the envelope only: nothing to route without envelope recipients", () => {
    expect(routeRecipients([], domains, agents)).toEqual([]);
  });

  it("uses the first of two agent items with the same address", () => {
    const twin = agent("helpdesk@agents.example.com", { name: "twin" });
    expect(routeRecipients(["helpdesk@agents.example.com"], domains, [helpdesk, twin])).toMatchObject([
      { agent: { name: "helpdesk@agents.example.com" } },
    ]);
  });
});
