import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { builtinTools } from "../../../shared/tool-framework/builtin/index.ts";
import { ToolRegistry } from "../../../shared/tool-framework/registry.ts";

describe("builtinTools", () => {
  const tools = builtinTools();
  it("lists every built-in once, and the registry accepts them", () => {
    expect(tools.map((t) => t.name).sort()).toEqual([
      "create_file",
      "read_attachment",
      "read_email",
      "record_fact",
      "search_emails",
      "send_email",
      "web_fetch",
      "web_search",
    ]);
    expect(new ToolRegistry(tools).names()).toHaveLength(8);
  });

  it("every tool that reads stored mail says so, and declares egress, side effects and docs", () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["search_emails", "read_attachment", "read_email"])
      expect(byName.get(name)?.readsStoredMail).toBe(true);
    for (const name of ["web_fetch", "web_search", "create_file"])
      expect(byName.get(name)?.readsStoredMail).not.toBe(true);
    for (const t of tools) {
      expect(t.egress.kind).toMatch(/^(structure|classified|exempt)$/);
      expect(t.description.length).toBeGreaterThan(40);
      expect(t.inputJsonSchema.type).toBe("object");
    }
  });

  it("each tool of this set has an operator doc in docs/tools/", () => {
    for (const name of [
      "search_emails",
      "read_attachment",
      "read_email",
      "create_file",
      "web_fetch",
      "web_search",
    ]) {
      expect(existsSync(new URL(`../../../docs/tools/${name}.md`, import.meta.url)), name).toBe(true);
    }
  });
});
