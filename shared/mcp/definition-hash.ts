import { createHash } from "node:crypto";

/** What a tool definition is pinned by: what the model would read and what it may send (G20). */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: unknown;
}

/**
 * sha256 over the canonical JSON (keys sorted at every depth) of the name, description and input schema. A rug pull
 * (a server that changes a reviewed tool's description or arguments after review) changes this; a server that only
 * reorders its JSON keys does not. Annotations are left out on purpose: no gate reads them.
 */
export function definitionHash(def: ToolDefinition): string {
  const canonical = canonicalJson({
    name: def.name,
    description: def.description ?? "",
    inputSchema: def.inputSchema ?? null,
  });
  return createHash("sha256").update(canonical).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
