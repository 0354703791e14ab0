import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allCommands, buildProgram, commandPath } from "../../../cli/program.ts";
import { cliReference } from "../../../cli/reference.ts";

const DOC = join(import.meta.dirname, "../../../docs/cli.md");

describe("docs/cli.md", () => {
  it("is what the commands' own definitions say (run `npm run docs:cli` after changing a command)", () => {
    expect(readFileSync(DOC, "utf8")).toBe(cliReference(buildProgram()));
  });

  it("has a section for every command, with its usage line", () => {
    const doc = readFileSync(DOC, "utf8");
    for (const cmd of allCommands(buildProgram())) {
      expect(doc).toContain(`\n## ${commandPath(cmd)}\n`);
      expect(doc).toContain(`\n${commandPath(cmd)} ${cmd.usage()}\n`);
    }
  });
});
