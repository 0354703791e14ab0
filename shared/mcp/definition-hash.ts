import { createHash } from "node:crypto";

/**
 * What a tool definition is pinned by (G20): every field the model or the operator reads as the server's word
 * about the tool. The model reads the name, description and input schema; the operator reviews the title and the
 * output schema too (what the tool claims to return), so a server that changes either after review is a rug pull.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: unknown;
  readonly title?: string | undefined;
  readonly outputSchema?: unknown;
}

/** Pins written since titles and output schemas are covered say so; a pin without it was hashed without them. */
export const PIN_HASH_VERSION = 2;

/**
 * sha256 over the canonical JSON (keys sorted at every depth) of the name, description, input schema, title and
 * output schema. A rug pull (a server that changes a reviewed tool's description, arguments, title or declared
 * output after review) changes this; a server that only reorders its JSON keys does not. A tool without a title
 * or an output schema hashes as it did before they were covered (absent fields are left out), so only pins of
 * tools that have them change. Annotations are left out on purpose: they are shown as claims, and no gate reads them.
 */
export function definitionHash(def: ToolDefinition): string {
  return sha256(
    canonicalJson({
      name: def.name,
      description: def.description ?? "",
      inputSchema: def.inputSchema ?? null,
      title: def.title,
      outputSchema: def.outputSchema,
    }),
  );
}

/** The hash of a pin written before titles and output schemas were covered: name, description, input schema. */
export function definitionHashV1(def: ToolDefinition): string {
  return sha256(
    canonicalJson({
      name: def.name,
      description: def.description ?? "",
      inputSchema: def.inputSchema ?? null,
    }),
  );
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

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
