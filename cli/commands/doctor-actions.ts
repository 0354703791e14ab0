import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Resources } from "../../shared/config/index.ts";
import { loadConfigFile } from "../../shared/config/index.ts";
import { awsPorts } from "../doctor/ports.ts";
import { formatReport } from "../doctor/report.ts";
import { runDoctor } from "../doctor/run.ts";

export interface DoctorOptions {
  resources?: string;
  config: string;
  region?: string;
  agentStepConcurrency?: number;
  reserveAgentStepConcurrency?: boolean;
  json?: boolean;
}

/** `postern doctor`'s body, loaded when it runs: the AWS SDK clients of every check are not needed for --help. */
export async function doctor(
  o: DoctorOptions,
  defaults: { readonly exampleConfig: string; readonly deployConfig: string; readonly concurrency: number },
): Promise<void> {
  const { exampleConfig, deployConfig } = defaults;
  const { config } = loadConfigFile(o.config);
  let resources: Resources | null = null;
  if (o.resources) {
    const { openTarget } = await import("../target.ts");
    const target = await openTarget({ target: "aws", resourcesFile: o.resources });
    resources = o.region ? { ...target.resources, region: o.region } : target.resources;
    await target.close();
  }
  const region = resources?.region ?? o.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) {
    // One line, not the program's help after it: the fix is in the message.
    process.stderr.write(
      "postern doctor: set AWS_REGION or pass --region (the region you deploy to); for the local stack, `npm start` here first, or pass --local\n",
    );
    process.exitCode = 1;
    return;
  }
  if (o.config === exampleConfig && !existsSync(deployConfig))
    process.stderr.write(
      `postern doctor: no ${deployConfig} here, so checking ${exampleConfig} (pass --config FILE)\n`,
    );
  const checks = await runDoctor(
    {
      config,
      resources,
      region,
      agentStep: {
        concurrency:
          o.agentStepConcurrency ?? resources?.agentStep?.reservedConcurrency ?? defaults.concurrency,
        reserve: o.reserveAgentStepConcurrency ?? resources?.agentStep?.reservedConcurrency !== undefined,
      },
    },
    awsPorts(region),
  );
  console.log(o.json ? JSON.stringify(checks, null, 2) : formatReport(checks));
  if (checks.some((c) => c.status === "fail")) process.exitCode = 1;
}

/** `postern doctor` on this machine (cli/doctor/local.ts): no AWS call. Exit code 1 when a check fails. */
export async function localDoctor(o: { dir: string; config?: string; json: boolean }): Promise<void> {
  const { runLocalDoctor } = await import("../doctor/local.ts");
  const checks = await runLocalDoctor({
    dir: resolve(o.dir),
    cwd: process.cwd(),
    ...(o.config ? { config: o.config } : {}),
  });
  console.log(o.json ? JSON.stringify(checks, null, 2) : formatReport(checks));
  if (checks.some((c) => c.status === "fail")) process.exitCode = 1;
}
