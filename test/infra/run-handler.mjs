// Runs in a fresh process: import a handler module (a bundle, or the TypeScript entry under tsx), time the
// import (cold module initialisation), call `handler` with each event, write the results as JSON to a file
// (stdout belongs to the function's structured logs), with the calls any bundle stub recorded
// (infra/bundle-stubs/unreachable.ts).
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modulePath, eventsJson, resultFile] = process.argv.slice(2);
const t0 = performance.now();
const c0 = process.cpuUsage();
const mod = await import(pathToFileURL(modulePath).href);
const initMs = performance.now() - t0;
// CPU time of the import (user + system): what the import costs, whatever else the machine runs meanwhile.
const c1 = process.cpuUsage(c0);
const initCpuMs = (c1.user + c1.system) / 1000;
const results = [];
for (const event of JSON.parse(eventsJson)) results.push(await mod.handler(event));
const stubCalls = globalThis[Symbol.for("postern.bundle-stub-calls")] ?? [];
writeFileSync(resultFile, JSON.stringify({ initMs, initCpuMs, results, stubCalls }));
