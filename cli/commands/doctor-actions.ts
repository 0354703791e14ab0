import { existsSync } from "node:fs";
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
  defaults: { readonly exampleConfig: string; readonly concurrency: number },
): Promise<void> {
  const { exampleConfig } = defaults;
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
    process.stderr.write("postern doctor: set AWS_REGION or pass --region (the region you deploy to)\n");
    process.exitCode = 1;
    return;
  }
  if (o.config === exampleConfig && !existsSync("postern.config.json"))
    process.stderr.write(
      `postern doctor: no postern.config.json here, so checking ${exampleConfig} (pass --config FILE)\n`,
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
