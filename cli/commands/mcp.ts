import type { Command } from "commander";
import type { AdminCatalog } from "../../shared/admin/index.ts";
import type { AdminRepo } from "../../shared/store/index.ts";
import type { AdminIo } from "./admin-io.ts";
import type { McpAddArgs, McpReach } from "./mcp-actions.ts";

interface Flags {
  target?: "local" | "aws";
  resources?: string;
}
type Body = (repo: AdminRepo, io: AdminIo, catalog: () => AdminCatalog) => Promise<void>;

/** Where the CLI reaches a server from: AWS targets list only public HTTPS/HTTP hosts, never stdio or loopback. */
async function reachFor(flags: Flags): Promise<McpReach> {
  const aws = flags.target === "aws" || Boolean(flags.resources);
  const { systemResolver } = await import("../../shared/net/index.ts");
  const secrets = aws
    ? (await import("../../shared/secrets/index.ts")).awsSecretSource()
    : (await import("../../shared/secrets/index.ts")).envSecretSource();
  return { aws, resolve: systemResolver, secrets };
}

const actions = () => import("./mcp-actions.ts");

/**
 * `postern mcp add|review|list|remove`: MCP tool servers as a toolkit source (docs/mcp.md). `leaf` and `run` are the
 * admin commands' (same target flags, same write check, same exit codes).
 */
export function registerMcpCommands(
  program: Command,
  leaf: (parent: Command, spec: string, description: string) => Command,
  run: (flags: Flags, body: Body) => Promise<void>,
): Command {
  const mcp = program
    .command("mcp")
    .description("MCP tool servers: register, review (tools pinned by hash), list, remove (docs/mcp.md)");
  leaf(
    mcp,
    "add <id>",
    "register a server: lists its tools now, pins the ones --tools chooses (none offered otherwise)",
  )
    .option("--url <url>", "Streamable HTTP endpoint (AWS and local); only this origin is ever reached")
    .option("--command <cmd>", "stdio server to start (local stack only)")
    .option("--arg <arg...>", "arguments of --command")
    .option(
      "--tools <spec>",
      "tools to offer, comma-separated name=class[:exposed_name][@principal_arg]; class: read, act (confirmed by " +
        "an approver, G14) or restricted (closes the run's channels, G18); the server's annotations never decide " +
        "this. @principal_arg: an input property Postern fills with the proven sender, hidden from the model (G17)",
    )
    .option(
      "--bearer-secret <ref>",
      "bearer token: secretsmanager:postern/mcp/<name> (AWS) or an env var ending _TOKEN/_KEY/_SECRET (local); " +
        "the reference is stored, never the token",
    )
    .option("--oauth-token-url <url>", "OAuth client credentials: the token endpoint")
    .option("--oauth-client-id <id>", "OAuth client credentials: the client id")
    .option(
      "--oauth-secret <ref>",
      "OAuth client credentials: where the client secret is (as --bearer-secret)",
    )
    .option("--oauth-scope <scope>", "OAuth client credentials: the scope to ask for")
    .option("--timeout-ms <ms>", "per call and per listing (default 15000)")
    .option("--max-calls <n>", "calls to this server per run (default 20)")
    .option("--data-classes <a,b>", "data classes its results carry, for the egress gate (G13)")
    .option("--no-record-content", "its results are not record content (an external model may then see them)")
    .option("--replace", "overwrite a registered server")
    .action((id: string, o: Flags & McpAddArgs) =>
      run(o, async (repo, io, catalog) =>
        (await actions()).mcpAdd(repo, io, id, o, catalog(), await reachFor(o)),
      ),
    );
  leaf(
    mcp,
    "review <id>",
    "list the server's tools against the pins (changed, new, gone); with --tools, pin that set as it is now",
  )
    .option("--tools <spec>", "the tools to offer from now on, as for add (replaces the reviewed set)")
    .option("--all", "print every tool in full, unchanged reviewed ones too (default: one line each)")
    .action((id: string, o: Flags & { tools?: string; all?: boolean }) =>
      run(o, async (repo, io, catalog) =>
        (await actions()).mcpReview(repo, io, id, o, catalog(), await reachFor(o)),
      ),
    );
  leaf(mcp, "list", "registered servers and their reviewed tools (no secrets)")
    .option("--json", "JSON output")
    .action((o: Flags & { json?: boolean }) =>
      run(o, async (repo, io) => (await actions()).mcpList(repo, io, o.json ?? false)),
    );
  leaf(mcp, "remove <id>", "remove a server: its tools are offered nowhere").action((id: string, o: Flags) =>
    run(o, async (repo, io) => (await actions()).mcpRemove(repo, io, id)),
  );
  return mcp;
}
