import { Command, CommanderError, Option } from "commander";
import type { AdminCatalog } from "../../shared/admin/index.ts";
import type { AdminRepo } from "../../shared/store/index.ts";
import { CommandFailure, describeError, UsageError } from "../errors.ts";
import type { TableTarget, TargetOptions } from "../target.ts";
import type * as Actions from "./admin-actions.ts";
import { type AdminIo, ioLogger, processIo } from "./admin-io.ts";
import { registerMcpCommands } from "./mcp.ts";

export interface AdminCliDeps {
  readonly io?: AdminIo;
  /** Default `openTableTarget`; tests hand in the emulators they started. */
  readonly open?: (opts: TargetOptions) => Promise<TableTarget>;
  /** Default sets `process.exitCode`. */
  readonly setExitCode?: (code: number) => void;
  /** Parse errors: default exits the process with 2 (usage); runAdminCommand throws instead. */
  readonly onParseError?: (err: CommanderError) => never;
  /** Default: the catalog of the config `configFileFor` finds (tests embedding the CLI hand in their own). */
  readonly catalog?: AdminCatalog;
  /** Where `postern.config.json` and `.postern/` are looked for; default the working directory (tests pass their own). */
  readonly cwd?: string;
}

interface TargetFlags {
  target?: "local" | "aws";
  dataDir?: string;
  resources?: string;
  config?: string;
}

/**
 * `act` is admin-actions.ts, loaded when a command runs (the repository pulls in the AWS SDK; `--help` should
 * not pay for it). `catalog()` loads the deployment config on first use: only writes need it, so reads work
 * without one.
 */
type Body = (act: typeof Actions, repo: AdminRepo, io: AdminIo, catalog: () => AdminCatalog) => Promise<void>;

const openTableTarget = async (opts: TargetOptions): Promise<TableTarget> =>
  (await import("../target.ts")).openTableTarget(opts);

/**
 * `postern admin|agents|rules|outbound-rules|toolkits|approvers ...`. Exit codes: 0 ok, 1 failure (invalid document, no such
 * item, unreachable target), 2 usage (unknown option, missing argument, conflicting options).
 */
export function registerAdminCommands(program: Command, deps: AdminCliDeps = {}): void {
  const io = deps.io ?? processIo;
  const open = deps.open ?? openTableTarget;
  const setExitCode =
    deps.setExitCode ??
    ((c: number) => {
      process.exitCode = c;
    });
  const onParseError =
    deps.onParseError ?? ((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2) as never);

  const run = async (flags: TargetFlags, body: Body): Promise<void> => {
    let target: TableTarget | undefined;
    try {
      if (flags.target === "local" && flags.resources)
        throw new UsageError("--resources names AWS resources; it cannot be used with --target local");
      const [act, { AdminRepo }, { catalogFromFile, configFileFor }] = await Promise.all([
        import("./admin-actions.ts"),
        import("../../shared/store/index.ts"),
        import("./admin-catalog.ts"),
      ]);
      target = await open({
        target: flags.target ?? (flags.resources ? "aws" : "local"),
        ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
        ...(flags.resources ? { resourcesFile: flags.resources } : {}),
      });
      const repo = new AdminRepo({
        dynamo: target.clients.dynamo,
        tables: target.resources.tables,
        logger: ioLogger(io),
      });
      const opened = target;
      let catalog = deps.catalog;
      const catalogOnce = () => {
        catalog ??= catalogFromFile(
          configFileFor({
            target: opened,
            ...(deps.cwd ? { cwd: deps.cwd } : {}),
            ...(flags.config ? { config: flags.config } : {}),
            ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
          }),
        );
        return catalog;
      };
      await body(act, repo, io, catalogOnce);
      setExitCode(0);
    } catch (err) {
      // Usage errors exit 2, expected failures 1 (cli/errors.ts). Unknown errors (AWS credentials, network) are
      // not ours to interpret: name and message, exit 1.
      // A refused write lists one line per field it names (the admin check's messages, kept as they are).
      const e = describeError(err);
      io.err(`error: ${err instanceof CommandFailure ? err.message : e.line}\n`);
      setExitCode(e.exitCode);
    } finally {
      await target?.close();
    }
  };

  const leaf = (parent: Command, spec: string, description: string): Command =>
    parent
      .command(spec)
      .description(description)
      .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
      .option("--data-dir <dir>", "local emulator state (default .postern/data)")
      .option("--resources <file>", "AWS resource names as JSON (the stack outputs); implies --target aws")
      .option(
        "--config <file>",
        "deployment config that writes are checked against (registered domains, models, limits); default: the " +
          "running local stack's, else postern.deploy.json (AWS) or postern.config.json (local), else the local demo config",
      );

  const admin = program.command("admin").description("the whole admin state as one JSON document");
  leaf(
    admin,
    "import <file>",
    "write an admin document (`-` = stdin); checked in full before any write: unknown keys, upper-case " +
      "addresses, references, and the deployment (registered domains, catalog models, registered tools, " +
      "approvers a confirm card can reach)",
  )
    .option("--replace", "also delete items absent from the document")
    .action((file: string, o: TargetFlags & { replace?: boolean }) =>
      run(o, (act, repo, io, catalog) => act.adminImport(repo, io, file, o.replace ?? false, catalog())),
    );
  leaf(admin, "export", "print the admin state as one JSON document")
    .option("--out <file>", "write to a file instead of stdout")
    .action((o: TargetFlags & { out?: string }) =>
      run(o, (act, repo, io) => act.adminExport(repo, io, o.out)),
    );

  const agents = program.command("agents").description("agents: an address, a model and instructions");
  leaf(agents, "list", "list agents")
    .option("--json", "JSON output")
    .action((o: TargetFlags & { json?: boolean }) =>
      run(o, (act, r, io) => act.agentsList(r, io, o.json ?? false)),
    );
  leaf(agents, "add", "add an agent (attached to the default toolkit)")
    .requiredOption(
      "--address <address>",
      "the agent's address at a registered domain, e.g. helpdesk@agents.example.com",
    )
    .requiredOption("--name <name>", "display name")
    .requiredOption("--model <id>", "a model id of the catalog (postern models list)")
    .option("--instructions <text>", "system instructions")
    .option("--replace", "overwrite an existing agent")
    .action((o: TargetFlags & Actions.AgentAddArgs) =>
      run(o, (act, r, io, catalog) => act.agentsAdd(r, io, o, catalog())),
    );
  leaf(
    agents,
    "remove <address>",
    "remove an agent with its access and outbound rules and toolkit memberships",
  ).action((address: string, o: TargetFlags) => run(o, (act, r, io) => act.agentsRemove(r, io, address)));

  const effect = () =>
    new Option("--effect <effect>", "allow or deny").choices(["allow", "deny"]).makeOptionMandatory();
  const rules = program.command("rules").description("per-agent inbound access rules (G3)");
  leaf(rules, "list", "list access rules")
    .option("--agent <address>", "only this agent's rules")
    .option("--json", "JSON output")
    .action((o: TargetFlags & { agent?: string; json?: boolean }) =>
      run(o, (act, r, io) => act.rulesList(r, io, o.agent, o.json ?? false)),
    );
  for (const [verb, fn, what] of [
    ["add", "rulesAdd", "add an access rule"],
    ["remove", "rulesRemove", "remove an access rule"],
  ] as const) {
    leaf(rules, verb, what)
      .requiredOption("--agent <address>", "the agent")
      .requiredOption("--pattern <pattern>", "an address or one * wildcard, e.g. *@example.com")
      .addOption(effect())
      .action((o: TargetFlags & Actions.RuleArgs) =>
        run(o, (act, r, io, catalog) => act[fn](r, io, o, catalog())),
      );
  }

  const outboundRules = program
    .command("outbound-rules")
    .description(
      "per-agent outbound rules: where send_email may write beyond a reply's own participants (default without " +
        "an allow rule: nowhere for a run started by mail, the registered domains for a scheduled run)",
    );
  leaf(outboundRules, "list", "list outbound rules")
    .option("--agent <address>", "only this agent's rules")
    .option("--json", "JSON output")
    .action((o: TargetFlags & { agent?: string; json?: boolean }) =>
      run(o, (act, r, io) => act.outboundRulesList(r, io, o.agent, o.json ?? false)),
    );
  for (const [verb, fn, what] of [
    ["add", "outboundRulesAdd", "add an outbound rule (any allow rule makes the agent an allow list)"],
    ["remove", "outboundRulesRemove", "remove an outbound rule"],
  ] as const) {
    leaf(outboundRules, verb, what)
      .requiredOption("--agent <address>", "the agent")
      .requiredOption(
        "--pattern <pattern>",
        "a recipient address, one * wildcard (*@partner.example) or *@**.example.com (with subdomains)",
      )
      .addOption(effect())
      .action((o: TargetFlags & Actions.RuleArgs) =>
        run(o, (act, r, io, catalog) => act[fn](r, io, o, catalog())),
      );
  }

  const toolkits = program.command("toolkits").description("toolkits: tools granted to agents (G11)");
  leaf(toolkits, "list", "list toolkits")
    .option("--json", "JSON output")
    .action((o: TargetFlags & { json?: boolean }) =>
      run(o, (act, r, io) => act.toolkitsList(r, io, o.json ?? false)),
    );
  leaf(toolkits, "add", "add a toolkit")
    .requiredOption("--id <id>", "toolkit id ([a-z0-9._-])")
    .requiredOption("--tools <a,b>", "comma-separated names of registered tools (or resolvers)")
    .option("--agents <a,b>", "comma-separated agent addresses to attach")
    .option("--name <name>", "display name")
    .option("--allow-scheduled", "usable on scheduled runs (no proven sender)")
    .option(
      "--archive-scope <scope>",
      "whose mail its tools read: sender (the run's sender's own, default) or agent (the whole archive; for " +
        "toolkits whose sender rules admit only staff; closes the run's channels, G18)",
    )
    .option(
      "--egress-hosts <a,b>",
      "hosts its web tools may still reach once a run's channels are closed (G18); none by default",
    )
    .option("--replace", "overwrite an existing toolkit")
    .action((o: TargetFlags & Actions.ToolkitAddArgs) =>
      run(o, (act, r, io, catalog) => act.toolkitsAdd(r, io, o, catalog())),
    );
  leaf(toolkits, "remove <id>", "remove a toolkit and its approvers").action((id: string, o: TargetFlags) =>
    run(o, (act, r, io) => act.toolkitsRemove(r, io, id)),
  );

  const approvers = program
    .command("approvers")
    .description("who may confirm a toolkit's confirm-tools (G14)");
  leaf(approvers, "list", "list approvers")
    .option("--toolkit <id>", "only this toolkit's approvers")
    .option("--json", "JSON output")
    .action((o: TargetFlags & { toolkit?: string; json?: boolean }) =>
      run(o, (act, r, io) => act.approversList(r, io, o.toolkit, o.json ?? false)),
    );
  leaf(approvers, "add", "add an approver")
    .requiredOption("--toolkit <id>", "toolkit id")
    .requiredOption(
      "--address <address>",
      "approver's address: one the outbound can mail a confirm card to (a plain address like boss@example.com), " +
        "never an agent's",
    )
    .action((o: TargetFlags & { toolkit: string; address: string }) =>
      run(o, (act, r, io, catalog) => act.approversAdd(r, io, o.toolkit, o.address, catalog())),
    );
  leaf(approvers, "remove", "remove an approver")
    .requiredOption("--toolkit <id>", "toolkit id")
    .requiredOption("--address <address>", "approver's address")
    .action((o: TargetFlags & { toolkit: string; address: string }) =>
      run(o, (act, r, io) => act.approversRemove(r, io, o.toolkit, o.address)),
    );

  const mcp = registerMcpCommands(program, leaf, (flags, body) =>
    run(flags, (_act, repo, io, catalog) => body(repo, io, catalog)),
  );

  // Usage errors anywhere in these commands exit 2 (commander's default is 1, which we keep for failures).
  for (const group of [admin, agents, rules, outboundRules, toolkits, approvers, mcp]) {
    for (const cmd of [group, ...group.commands]) cmd.exitOverride((err) => onParseError(err));
  }
}

/**
 * Run one admin command in-process (tests, embedding): argv without the program name, e.g.
 * `["agents", "list", "--json"]` → the exit code. Output goes to `io`.
 */
export async function runAdminCommand(
  argv: readonly string[],
  deps: {
    io: AdminIo;
    open: (opts: TargetOptions) => Promise<TableTarget>;
    catalog?: AdminCatalog;
    cwd?: string;
  },
): Promise<number> {
  let code = 0;
  const program = new Command("postern")
    .exitOverride()
    .configureOutput({ writeOut: (s) => deps.io.out(s), writeErr: (s) => deps.io.err(s) });
  registerAdminCommands(program, {
    ...deps,
    setExitCode: (c) => {
      code = c;
    },
    onParseError: (err) => {
      throw err;
    },
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    throw err;
  }
  return code;
}
