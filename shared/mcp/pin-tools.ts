import { exposedName, type McpToolClass, type McpToolPin } from "../admin/index.ts";
import { type FailWithDetail, fail, type Ok } from "../result.ts";
import { definitionHash, PIN_HASH_VERSION } from "./definition-hash.ts";
import type { ListedTool } from "./open-session.ts";

/** The operator's decision about one listed tool. */
export interface ToolChoice {
  readonly name: string;
  readonly class: McpToolClass;
  /** The model-facing name; defaults to `<server>_<tool>` in snake_case. */
  readonly exposedAs?: string;
  /** An input property Postern fills with the proven sender (G17), hidden from the model. */
  readonly principalArgument?: string;
}

export type PinResult = Ok<{ readonly pins: readonly McpToolPin[] }> | FailWithDetail<"mcp-tool-unknown">;

/**
 * Pin the chosen tools exactly as the server lists them now: what the operator reviewed is what is stored and
 * hashed, and what the model will be offered. A choice naming a tool the server does not list is refused.
 */
export function pinTools(
  serverId: string,
  listed: readonly ListedTool[],
  choices: readonly ToolChoice[],
  now: Date,
): PinResult {
  const pins: McpToolPin[] = [];
  for (const c of choices) {
    const def = listed.find((t) => t.name === c.name);
    if (!def) return fail("mcp-tool-unknown", `the server lists no tool ${JSON.stringify(c.name)}`);
    const props = (def.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    if (c.principalArgument !== undefined && !Object.hasOwn(props, c.principalArgument))
      return fail(
        "mcp-tool-unknown",
        `${c.name} has no input property ${JSON.stringify(c.principalArgument)} to carry the principal`,
      );
    pins.push({
      name: def.name,
      exposedAs: c.exposedAs ?? exposedName(serverId, def.name),
      class: c.class,
      description: def.description ?? "",
      inputSchema: (def.inputSchema ?? { type: "object" }) as Record<string, unknown>,
      ...(def.title !== undefined ? { title: def.title } : {}),
      ...(def.outputSchema !== undefined
        ? { outputSchema: def.outputSchema as Record<string, unknown> }
        : {}),
      hash: definitionHash(def),
      hashVersion: PIN_HASH_VERSION,
      reviewedAt: now.toISOString(),
      ...(c.principalArgument !== undefined ? { principalArgument: c.principalArgument } : {}),
    });
  }
  return { ok: true, pins };
}
