import * as z from "zod";

/**
 * An MCP tool server as the operator registered it (admin table `mcpServers`): where it is, how Postern
 * authenticates to it, and the tools the operator reviewed, each pinned by a hash of its definition (G20).
 * Secrets are named here, never held (G16): the bearer token or client secret lives in Secrets Manager (AWS) or
 * the local secrets file.
 */

/** Lower-case, snake-ish: it prefixes the names of the server's tools as the model sees them. */
export const mcpServerId = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,23}$/, "must be a short lower-case id ([a-z0-9_], starting with a letter)");

/**
 * Who decides what a tool may do: the operator, never the server's annotations (`readOnlyHint` is a claim).
 * `read` runs in the loop; `act` goes through propose → confirm → apply (G14); `restricted` runs in the loop and
 * its result closes the run's channels (G18).
 */
export const mcpToolClass = z.enum(["read", "act", "restricted"]);
export type McpToolClass = z.infer<typeof mcpToolClass>;

/** A JSON Schema object as the server declared it for a tool's input. */
const inputSchema = z.record(z.string(), z.unknown()).refine((s) => s.type === "object", {
  message: 'an MCP tool input schema has type "object"',
});

/** One reviewed tool: its definition exactly as reviewed, and what the operator decided about it. */
export const mcpToolPin = z
  .object({
    /** The server's own name for the tool. */
    name: z.string().min(1).max(128),
    /** The name the model calls (snake_case, unique across the registry). */
    exposedAs: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "must be a snake_case tool name"),
    class: mcpToolClass,
    description: z.string().max(8_000),
    inputSchema,
    /** The tool's title and declared output schema as reviewed, when the server gave them (pinned too). */
    title: z.string().max(1_000).optional(),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    /**
     * sha256 over the canonical JSON of name, description, input schema, title and output schema
     * (shared/mcp/definition-hash.ts). A pin without `hashVersion: 2` was written before the title and output
     * schema were covered, and hashed without them.
     */
    hash: z.string().regex(/^[a-f0-9]{64}$/, "must be a sha256 hex digest"),
    hashVersion: z.literal(2).optional(),
    reviewedAt: z.string().min(1),
    /**
     * G17 for a server that takes the acting user as an argument: this input property is filled with the run's
     * proven sender and hidden from the model (never model-supplied); a run without a proven sender cannot call it.
     */
    principalArgument: z.string().min(1).max(128).optional(),
  })
  .loose();
export type McpToolPin = z.infer<typeof mcpToolPin>;

/**
 * Where a credential is (G16), never the credential: in AWS a Secrets Manager secret under `postern/mcp/` (the
 * agent-step function may read only those), locally an environment variable of the local stack.
 */
export const mcpSecretRef = z
  .string()
  .regex(
    /^(secretsmanager:postern\/mcp\/[A-Za-z0-9/_+=.@-]{1,400}|[A-Z][A-Z0-9_]*(_KEY|_TOKEN|_SECRET))$/,
    "must be secretsmanager:postern/mcp/<name> (AWS) or an env-var name ending in _KEY, _TOKEN or _SECRET (local)",
  );
const secretName = mcpSecretRef;

export const mcpAuth = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("none") }).strict(),
  z.object({ kind: z.literal("bearer"), secret: secretName }).strict(),
  z
    .object({
      kind: z.literal("oauth-client-credentials"),
      tokenUrl: z.url({ protocol: /^https?$/ }),
      clientId: z.string().min(1).max(256),
      /** Holds the client secret. */
      secret: secretName,
      scope: z.string().max(512).optional(),
    })
    .strict(),
]);
export type McpAuth = z.infer<typeof mcpAuth>;

/** What an item's pinned definitions may take, well under DynamoDB's 400 KB item limit. */
const MAX_PINNED_BYTES = 300 * 1024;

export const mcpServerItem = z
  .object({
    id: mcpServerId,
    /** Streamable HTTP in AWS and locally; stdio only in the local stack (a child process of the runtime). */
    transport: z.enum(["http", "stdio"]),
    url: z.url({ protocol: /^https?$/ }).optional(),
    command: z.string().min(1).max(1_000).optional(),
    args: z.array(z.string().max(1_000)).max(50).default([]),
    auth: mcpAuth.default({ kind: "none" }),
    /** Each call, each listing, is abandoned after this long. */
    timeoutMs: z.number().int().min(100).max(120_000).default(15_000),
    /** Calls to this server's tools per run, across its rounds. */
    maxCallsPerRun: z.number().int().min(1).max(1_000).default(20),
    /**
     * What the results carry for the egress gate (G13): `true` (the default) treats them as record content, which
     * an external model does not receive under the default policy; data classes name what the server returns.
     */
    recordContent: z.boolean().default(true),
    dataClasses: z.array(z.string().min(1).max(64)).max(20).default([]),
    tools: z.array(mcpToolPin).max(100).default([]),
    enabled: z.boolean().default(true),
  })
  .loose()
  .superRefine((s, ctx) => {
    if (s.transport === "http" && !s.url)
      ctx.addIssue({ code: "custom", path: ["url"], message: "an http server needs its url" });
    if (s.transport === "stdio" && !s.command)
      ctx.addIssue({ code: "custom", path: ["command"], message: "a stdio server needs its command" });
    // DynamoDB items stop at 400 KB: a server whose reviewed definitions would not fit is refused at write time
    // instead of failing in the store.
    if (Buffer.byteLength(JSON.stringify(s.tools)) > MAX_PINNED_BYTES)
      ctx.addIssue({
        code: "custom",
        path: ["tools"],
        message: `the reviewed definitions exceed ${MAX_PINNED_BYTES / 1024} KiB: review fewer tools`,
      });
    const seen = new Set<string>();
    s.tools.forEach((t, i) => {
      if (seen.has(t.exposedAs))
        ctx.addIssue({ code: "custom", path: ["tools", i, "exposedAs"], message: "exposed twice" });
      seen.add(t.exposedAs);
    });
  });
export type McpServerItem = z.infer<typeof mcpServerItem>;

/** The model-facing name of a server's tool: `<server>_<tool>`, folded to snake_case, at most 64 characters. */
export function exposedName(serverId: string, toolName: string): string {
  const folded = toolName
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return `${serverId}_${folded || "tool"}`.slice(0, 64).replace(/_+$/, "");
}
