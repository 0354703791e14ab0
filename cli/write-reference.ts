import { writeFileSync } from "node:fs";
import { buildProgram } from "./program.ts";
import { cliReference } from "./reference.ts";

/** `npm run docs:cli`: rewrite docs/cli.md from the commands' definitions. */
const file = new URL("../docs/cli.md", import.meta.url);
writeFileSync(file, cliReference(buildProgram()));
console.log(`wrote ${file.pathname}`);
