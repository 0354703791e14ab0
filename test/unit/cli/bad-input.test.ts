import { Command, type Option } from "commander";
import { describe, expect, it } from "vitest";
import { allCommands, buildProgram, commandPath } from "../../../cli/program.ts";
import { runCli } from "../../../cli/run-cli.ts";

/**
 * Every command, taken from commander's own definitions (a new command is covered without touching this file),
 * run with bad input: a usage error exits 2 with one line on stderr that names the command's usage, never a
 * stack trace or the whole help (clig.dev).
 */
async function cli(argv: string[], env: NodeJS.ProcessEnv = {}, program?: Command) {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    io: {
      out: (s) => {
        out += s;
      },
      err: (s) => {
        err += s;
      },
    },
    env,
    ...(program ? { program } : {}),
  });
  return { code, out, err };
}

const words = (cmd: Command) => commandPath(cmd).split(" ").slice(1);
const commands = allCommands(buildProgram());
const leaves = commands.filter((c) => c.commands.length === 0);
const groups = commands.filter((c) => c.commands.length > 0);
/** Options whose value goes through a parser of ours (numbers, ports): "abc" must be refused. */
const parsed = leaves.flatMap((c) =>
  c.options
    .filter((o: Option) => o.parseArg !== undefined && o.required)
    .map((o: Option) => [commandPath(c), c, o.long ?? ""] as const),
);

function expectOneUsageLine(r: { code: number; err: string; out: string }, path: string) {
  expect(r.code).toBe(2);
  expect(r.out).toBe("");
  expect(r.err.endsWith("\n")).toBe(true);
  expect(r.err.trimEnd().split("\n")).toHaveLength(1);
  expect(r.err).not.toMatch(/^\s+at /m);
  expect(r.err).toContain(`usage: ${path} `);
}

describe("every command with bad input: exit 2, one line with its usage", () => {
  it("covers the whole tree (the enumeration itself is not empty)", () => {
    expect(leaves.map(commandPath)).toEqual(
      expect.arrayContaining([
        "postern runs list",
        "postern dev send",
        "postern doctor",
        "postern agents add",
      ]),
    );
    expect(parsed.map(([p, , o]) => `${p} ${o}`)).toContain("postern runs list --limit");
  });

  it.each(leaves.map((c) => [commandPath(c), c] as const))("%s --no-such-option", async (path, cmd) => {
    expectOneUsageLine(await cli([...words(cmd), "--no-such-option"]), path);
  });

  it.each(groups.map((c) => [commandPath(c), c] as const))("%s no-such-command", async (path, cmd) => {
    expectOneUsageLine(await cli([...words(cmd), "no-such-command"]), path);
  });

  it.each(parsed)("%s: %s abc is a usage error", async (path, cmd, flag) => {
    const r = await cli([...words(cmd), flag, "abc"]);
    expectOneUsageLine(r, path);
    expect(r.err).toContain(flag);
  });

  it("runs list --limit abc says what it expected (not an empty table with exit 0)", async () => {
    const r = await cli(["runs", "list", "--limit", "abc"]);
    expect(r.err).toMatch(
      /^postern runs list: option '--limit <n>' argument 'abc' is invalid\. expected a whole number/,
    );
  });
});

describe("the top-level handler", () => {
  const failing = (thrown: () => unknown) => {
    const program = new Command("postern").option("--debug");
    program.command("boom").action(() => {
      throw thrown();
    });
    return program;
  };

  it("prints an unexpected error as one line without its stack, and exits 1", async () => {
    const r = await cli(
      ["boom"],
      {},
      failing(() => new TypeError("x is not a function")),
    );
    expect(r).toEqual({
      code: 1,
      out: "",
      err: "postern boom: TypeError: x is not a function (a bug? --debug prints the stack)\n",
    });
  });

  it.each([
    ["--debug", ["boom", "--debug"], {}],
    ["POSTERN_DEBUG=1", ["boom"], { POSTERN_DEBUG: "1" }],
  ] as const)("prints the stack with %s", async (_, argv, env) => {
    const r = await cli(
      [...argv],
      env,
      failing(() => new TypeError("x is not a function")),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^postern boom: TypeError: x is not a function\n/);
    expect(r.err).toMatch(/^\s+at /m);
  });

  it("an expected failure names the fix, exits 1; a configuration error exits 2 in one line", async () => {
    const { CommandFailure } = await import("../../../cli/errors.ts");
    const { ConfigError } = await import("../../../shared/config/load.ts");
    const busy = await cli(
      ["boom"],
      {},
      failing(() => new CommandFailure("port 12525 is in use; pass --smtp-port")),
    );
    expect(busy).toMatchObject({ code: 1, err: "postern boom: port 12525 is in use; pass --smtp-port\n" });
    const config = await cli(
      ["boom"],
      {},
      failing(
        () => new ConfigError("postern.config.json", ["line 4 column 9: not valid JSON (x)", "domains: y"]),
      ),
    );
    expect(config).toMatchObject({
      code: 2,
      err: "postern boom: postern.config.json: line 4 column 9: not valid JSON (x); domains: y\n",
    });
  });

  it("a misconfiguration our code names prints its message (the fix), not the class name", async () => {
    const { PosternError } = await import("../../../shared/errors.ts");
    const r = await cli(
      ["boom"],
      {},
      failing(
        () =>
          new PosternError(
            "misconfigured",
            "/x/secrets.json is readable by others: chmod 600 /x/secrets.json",
          ),
      ),
    );
    expect(r).toMatchObject({
      code: 1,
      err: "postern boom: /x/secrets.json is readable by others: chmod 600 /x/secrets.json\n",
    });
  });

  it("a port in use names the option that moves it", async () => {
    const { portInUse } = await import("../../../cli/commands/start.ts");
    // Ports as a user may have moved them (the stack's defaults never appear in a test: harness/stack-ports).
    const ports = {
      smtpPort: 12525,
      awsPort: 14566,
      dynamodbPort: 14567,
      sesPort: 14568,
      consolePort: 14570,
    };
    const inUse = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:12525"), {
      code: "EADDRINUSE",
      port: 12525,
    });
    expect(portInUse(inUse, ports)?.message).toBe(
      "port 12525 is in use; pass --smtp-port or stop the process using it",
    );
    expect(portInUse(new Error("other"), ports)).toBeUndefined();
  });

  it("--version prints the package's version; --help exits 0", async () => {
    const version = await cli(["--version"]);
    expect(version).toMatchObject({ code: 0, err: "" });
    expect(version.out).toMatch(/^\d+\.\d+\.\d+\n$/);
    // -v and -V say the same (issue 31 item 7, finding 16: `-v` was an unknown option).
    for (const flag of ["-v", "-V"]) expect(await cli([flag]), flag).toEqual(version);
    const help = await cli(["runs", "list", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("Usage: postern runs list [options]");
  });
});
