import type { McpToolPin } from "../admin/index.ts";
import {
  definitionHash,
  definitionHashV1,
  PIN_HASH_VERSION,
  type ToolDefinition,
} from "./definition-hash.ts";

/**
 * The `hash` of a changed tool whose pin predates the coverage of titles and output schemas: its name,
 * description and input schema are as reviewed, but it has a title or an output schema nobody pinned. Withheld like
 * any change (never offered on a hash that did not cover what the operator now sees), and said plainly, so the
 * operator knows to review it again rather than hunt for a rug pull.
 */
export const PIN_PREDATES_COVERAGE = "pin-predates-title-output-schema";

/** A server's live listing against the operator's pins (G20). */
export interface PinComparison {
  /** Pinned tools whose live definition hashes to the pin: the only ones offered. */
  readonly verified: readonly McpToolPin[];
  /** Pinned tools whose definition changed since review: not offered until reviewed (`mcp-definition-changed`). */
  readonly changed: readonly { readonly pin: McpToolPin; readonly hash: string }[];
  /** Pinned tools the server no longer lists. */
  readonly missing: readonly McpToolPin[];
  /** Tools the server lists that nobody reviewed: never offered. */
  readonly unreviewed: readonly string[];
}

export function comparePins(listed: readonly ToolDefinition[], pins: readonly McpToolPin[]): PinComparison {
  const live = new Map<string, ToolDefinition>();
  // A server listing one name twice is ambiguous: which definition would a call reach? Neither is trusted.
  const twice = new Set<string>();
  for (const t of listed) {
    if (live.has(t.name)) twice.add(t.name);
    live.set(t.name, t);
  }
  const verified: McpToolPin[] = [];
  const changed: { pin: McpToolPin; hash: string }[] = [];
  const missing: McpToolPin[] = [];
  for (const pin of pins) {
    const def = live.get(pin.name);
    if (!def) {
      missing.push(pin);
      continue;
    }
    const hash = twice.has(pin.name) ? "listed-twice" : definitionHash(def);
    if (hash === pin.hash) verified.push(pin);
    else if (pin.hashVersion !== PIN_HASH_VERSION && definitionHashV1(def) === pin.hash)
      changed.push({ pin, hash: PIN_PREDATES_COVERAGE });
    else changed.push({ pin, hash });
  }
  const pinned = new Set(pins.map((p) => p.name));
  const unreviewed = [...live.keys()].filter((n) => !pinned.has(n));
  return { verified, changed, missing, unreviewed };
}
