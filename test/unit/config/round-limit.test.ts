import { describe, expect, it } from "vitest";
import { configRoundLimit, roundLimit } from "../../../shared/admin/round-limit.ts";
import { agentItem } from "../../../shared/admin/schema.ts";
import { type ConfigError, parseConfig } from "../../../shared/config/load.ts";

// The round limit (G10) is `maxRounds`; `maxToolTurns`, its former name, is in deployed configs and stored agents,
// so both still read, for one release, and a config that says two different things is refused.

const base = {
  domains: ["shopping.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "demo-script.json", egress: "internal" }],
};
const agent = (extra: Record<string, unknown> = {}) =>
  agentItem.parse({ address: "helpdesk@shopping.example.net", name: "Helpdesk", model: "demo", ...extra });

describe("the round limit and its former name", () => {
  it("reads maxRounds, else the former maxToolTurns, else 8", () => {
    expect(configRoundLimit(parseConfig({ ...base, maxRounds: 5 }))).toBe(5);
    expect(configRoundLimit(parseConfig({ ...base, maxToolTurns: 4 }))).toBe(4);
    expect(configRoundLimit(parseConfig({ ...base, maxRounds: 6, maxToolTurns: 6 }))).toBe(6);
    expect(configRoundLimit(parseConfig(base))).toBe(8);
  });

  it("refuses a config whose two names disagree, naming the fix", () => {
    let problems: readonly string[] = [];
    try {
      parseConfig({ ...base, maxRounds: 5, maxToolTurns: 9 });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems.join("\n")).toMatch(/^maxToolTurns: .*keep maxRounds only/m);
  });

  it("lets an agent lower the limit, by either name, and never raise it", () => {
    const config = parseConfig({ ...base, maxRounds: 6 });
    expect(roundLimit(config, agent())).toBe(6);
    expect(roundLimit(config, agent({ maxRounds: 3 }))).toBe(3);
    expect(roundLimit(config, agent({ maxToolTurns: 2 }))).toBe(2);
    expect(roundLimit(config, agent({ maxRounds: 50 }))).toBe(6);
    expect(roundLimit(config, agent({ maxRounds: 3, maxToolTurns: 5 }))).toBe(3);
  });
});
