import { type Command, Option } from "commander";
import { CommandFailure, describeError, UsageError } from "../errors.ts";

interface Flags {
  target?: "local" | "aws";
  dataDir?: string;
  resources?: string;
}

type Store = import("../../shared/secrets/index.ts").SecretsStore;
type Io = import("./admin-io.ts").AdminIo;

/** Reads a value piped on stdin, or at a prompt that does not echo it when stdin is a terminal. */
async function readSecretValue(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  process.stderr.write("value (not echoed): ");
  // Echo off: the value must not be left on the screen or in a terminal recording.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => undefined;
  const value = await new Promise<string>((resolve) => rl.question("", resolve));
  rl.close();
  process.stderr.write("\n");
  return value;
}

/**
 * `postern secrets set|list|remove` (docs/secrets.md): model keys, MCP credentials and other secrets under
 * `postern/...`. Locally the stack's `.postern/secrets.json` (0600); with `--target aws` Secrets Manager in the
 * region of the stack's resources file. Loaded when a command runs, so `postern --help` stays cheap.
 */
export function registerSecretsCommands(program: Command): void {
  const run = async (flags: Flags, body: (store: Store, io: Io) => Promise<unknown>): Promise<void> => {
    const { processIo } = await import("./admin-io.ts");
    try {
      if (flags.target === "local" && flags.resources)
        throw new UsageError("--resources names AWS resources; it cannot be used with --target local");
      const secrets = await import("../../shared/secrets/index.ts");
      let store: Store;
      if ((flags.target ?? (flags.resources ? "aws" : "local")) === "aws") {
        const { openTableTarget } = await import("../target.ts");
        const t = await openTableTarget({
          target: "aws",
          ...(flags.resources ? { resourcesFile: flags.resources } : {}),
        });
        const region = t.resources.region;
        await t.close();
        const { SecretsManagerClient } = await import("@aws-sdk/client-secrets-manager");
        store = secrets.awsSecretsStore({ client: new SecretsManagerClient({ region }) });
      } else {
        const path = await import("node:path");
        const dataDir = path.resolve(flags.dataDir ?? path.join(".postern", "data"));
        const { localSecretsFile } = await import("../local/secrets-file.ts");
        store = secrets.fileSecretsStore(localSecretsFile(path.dirname(dataDir)));
      }
      const result = await body(store, processIo);
      process.exitCode = result === false ? 1 : 0;
    } catch (err) {
      const e = describeError(err);
      processIo.err(`error: ${err instanceof CommandFailure ? err.message : e.line}\n`);
      process.exitCode = e.exitCode;
    }
  };

  const group = program
    .command("secrets")
    .description("model keys, MCP credentials and other secrets, by name under postern/ (never printed)");
  const leaf = (spec: string, description: string): Command =>
    group
      .command(spec)
      .description(description)
      .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
      .option("--data-dir <dir>", "local emulator state (default .postern/data); secrets.json is beside it")
      .option("--resources <file>", "AWS resource names as JSON (the stack outputs); implies --target aws");

  leaf(
    "set <name>",
    "store a secret; the value is read from stdin, or a prompt that does not echo it",
  ).action((name: string, o: Flags) =>
    run(o, async (store, io) =>
      (await import("./secrets-actions.ts")).secretsSet(store, io, name, readSecretValue),
    ),
  );
  leaf("list", "secret names and when each changed (never values)")
    .option("--json", "JSON output")
    .action((o: Flags & { json?: boolean }) =>
      run(o, async (store, io) =>
        (await import("./secrets-actions.ts")).secretsList(store, io, o.json ?? false),
      ),
    );
  leaf("remove <name>", "delete a secret (in AWS at once, with no recovery window)").action(
    (name: string, o: Flags) =>
      run(o, async (store, io) => (await import("./secrets-actions.ts")).secretsRemove(store, io, name)),
  );
}
