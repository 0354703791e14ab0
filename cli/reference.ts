import type { Command, Option } from "commander";
import { allCommands, commandPath } from "./program.ts";

/**
 * docs/cli.md, written from the commands' own definitions (`npm run docs:cli`); a test fails when the file and
 * the definitions drift apart. Headings, code blocks and lists: Markdown that Biome's formatter leaves as it is.
 */
export function cliReference(program: Command): string {
  const intro = [
    "# `postern` command reference",
    "",
    "Generated from the commands' own definitions by `npm run docs:cli`; `test/unit/cli/reference.test.ts` fails",
    "when this file and the definitions drift apart. `postern <command> --help` prints the same.",
    "",
    "Run it as `npx postern ...` or `npm run postern -- ...` from the project directory (both use the Node 24 that",
    "`npm ci` installs). Exit codes: 0 ok, 1 a failure (the message names the cause and the fix), 2 a usage or",
    "configuration error (the message names the command's usage). `--debug` or `POSTERN_DEBUG=1` adds stack",
    "traces.",
    "",
    "The CLI itself starts in about 0.2 s (`npm run bench:cli`). `npx` adds its own start, about 0.7 s on a 2-core",
    "machine (`npx node -e 0` alone), and `npm run` about 0.4 s. Where that matters, call the CLI with the project's",
    'Node 24 directly: `alias postern="$PWD/node_modules/.bin/node $PWD/bin/postern.mjs"` in the project directory.',
    "",
    "## Commands",
    "",
    ...allCommands(program)
      .slice(1)
      .map((c) => `- [\`${commandPath(c)}\`](#${anchor(c)}): ${oneLine(summary(c))}`),
    "",
  ];
  return [...intro, ...allCommands(program).map(section)].join("\n").replace(/\n+$/, "\n");
}

function section(cmd: Command): string {
  const path = commandPath(cmd);
  const lines = [`## ${path}`, "", "```text", `${path} ${cmd.usage()}`, "```", ""];
  const description = cmd.description();
  if (description) lines.push(...description.split("\n").map((l) => l.trimEnd()), "");
  const args = cmd.registeredArguments;
  if (args.length > 0) {
    lines.push("Arguments:", "");
    for (const a of args)
      lines.push(item(`\`${a.name()}\`${a.required ? "" : " (optional)"}`, a.description || "(see above)"));
    lines.push("");
  }
  const options = cmd.options.filter((o) => !o.hidden);
  if (options.length > 0) {
    lines.push("Options:", "");
    for (const o of options) lines.push(item(`\`${o.flags}\``, optionText(o)));
    lines.push("");
  }
  if (cmd.commands.length > 0) {
    lines.push("Commands:", "");
    for (const c of cmd.commands) lines.push(item(`[\`${c.name()}\`](#${anchor(c)})`, summary(c)));
    lines.push("");
  }
  return lines.join("\n");
}

function optionText(o: Option): string {
  const parts = [o.description];
  if (o.mandatory) parts.push("(required)");
  if (o.argChoices) parts.push(`(one of: ${o.argChoices.join(", ")})`);
  if (o.defaultValue !== undefined && typeof o.defaultValue !== "boolean")
    parts.push(`(default: \`${String(o.defaultValue)}\`)`);
  return parts.filter((p) => p).join(" ");
}

const summary = (c: Command): string => c.summary() || c.description().split("\n")[0] || "";
const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();
/** One list item per option, argument or subcommand: lists (unlike tables) keep their shape under Biome. */
const item = (name: string, text: string): string => `- ${name}: ${oneLine(text)}`;
/** GitHub's heading anchor for `## postern runs list`. */
const anchor = (c: Command): string => commandPath(c).toLowerCase().replace(/\s+/g, "-");
