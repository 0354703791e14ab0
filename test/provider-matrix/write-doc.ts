import { readFileSync, writeFileSync } from "node:fs";
import { loadShapes } from "./fixtures.ts";
import { providerTables, withProviderTables } from "./table.ts";

/** `npm run docs:gate`: rewrite docs/gate.md's provider tables from the corpus and the expected matrix. */
const file = new URL("../../docs/gate.md", import.meta.url);
writeFileSync(file, withProviderTables(readFileSync(file, "utf8"), providerTables(loadShapes())));
console.log(`wrote ${file.pathname}`);
