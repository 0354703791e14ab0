import { runCli } from "./run-cli.ts";

/** `postern` (bin/postern.mjs): run the command line and leave with its exit code. */
process.exitCode = await runCli(process.argv.slice(2));
