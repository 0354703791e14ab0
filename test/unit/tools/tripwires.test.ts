import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinTools } from "../../../shared/tool-framework/builtin/index.ts";
import { operatorTools } from "../../../tools/index.ts";

/**
 * Tripwires: they iterate over every registered tool, built-in and operator, so a tool added later
 * cannot slip past the egress gate, the confirm rule or the mailbox scope without failing the build.
 */
const every = [...builtinTools(), ...operatorTools({ BRAVE_SEARCH_API_KEY: "tripwire-test-key" })];
const root = new URL("../../../", import.meta.url).pathname;

describe("tool tripwires", () => {
  it("the registry is not empty and names are unique", () => {
    expect(every.length).toBeGreaterThan(8);
    expect(new Set(every.map((t) => t.name)).size).toBe(every.length);
  });

  it.each(every.map((t) => [t.name, t] as const))(
    "%s declares its egress classification (G13)",
    (_name, t) => {
      expect(["structure", "classified", "exempt"]).toContain(t.egress?.kind);
      if (t.egress.kind === "exempt") expect(t.egress.reason.trim().length).toBeGreaterThan(20);
      if (t.egress.kind === "classified") {
        expect(typeof t.egress.classifyInput).toBe("function");
        expect(typeof t.egress.classifyResult).toBe("function");
      }
    },
  );

  it.each(every.map((t) => [t.name, t] as const))(
    "%s: external side effects are confirm or exempt with a reason (G14)",
    (_name, t) => {
      if (t.sideEffects.kind !== "external") return;
      if (t.sideEffects.confirm) return;
      expect(t.sideEffects.exemptReason.trim().length).toBeGreaterThan(20);
      // Only the agent's voice is exempt; any other exemption must be added here deliberately, with its reason.
      expect(t.name).toBe("send_email");
    },
  );

  it.each(every.map((t) => [t.name] as const))("%s has an operator doc in docs/tools/", (name) => {
    expect(existsSync(join(root, "docs/tools", `${name}.md`)), `docs/tools/${name}.md`).toBe(true);
  });

  it("no tool module reaches storage except through the context's bound mailbox (G12)", () => {
    // A tool that imported the store or an AWS client could read any agent's mail; through ctx.mailbox it
    // cannot, because the mailbox is bound to the run's agent and thread before the tool sees it.
    const dirs = ["shared/tool-framework/builtin", "tools"];
    const offenders: string[] = [];
    for (const dir of dirs) {
      for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith(".ts"))) {
        const src = readFileSync(join(root, dir, file), "utf8");
        for (const m of src.matchAll(/from\s+"([^"]+)"/g)) {
          const spec = m[1] ?? "";
          if (/^@aws-sdk\//.test(spec) || /\/store\//.test(spec) || /\/agent\/mailbox/.test(spec))
            offenders.push(`${dir}/${file}: ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
