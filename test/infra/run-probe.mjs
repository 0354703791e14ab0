// Runs in a fresh process: import a bundled test/infra/verify-probe.ts, run each job of a JSON file through its
// `probe`, write the results as JSON.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modulePath, jobsFile, resultFile] = process.argv.slice(2);
const { probe } = await import(pathToFileURL(modulePath).href);
const results = [];
for (const job of JSON.parse(readFileSync(jobsFile, "utf8"))) results.push(await probe(job));
writeFileSync(resultFile, JSON.stringify(results));
