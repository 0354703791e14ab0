// `npm run docs:cost`: docs/deploy.md's cost tables again from today's template and bench:cost's last measured
// inputs (bench/cost-measured.json), without the five-minute measurement: a template change (a new alarm, a new
// log metric) moves the fixed costs, and the doc must follow it (test/infra/fixed-costs.test.ts).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildApp } from "../infra/build-app.ts";
import { PRICES } from "./aws-prices.ts";
import { DOC_FILE, MEASURED_FILE, readMeasured, writeCostDocs } from "./cost-table.ts";
import type { CfnTemplate } from "./fixed-costs.ts";

const root = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "postern-cost-docs-"));
try {
  const { app, stack } = buildApp({
    projectRoot: root,
    configFile: join(root, "postern.config.example.json"),
    outdir: dir,
    bundle: false,
    nag: false,
    env: { account: "111111111111", region: PRICES.region },
  });
  const template = app.synth().getStackByName(stack.stackName).template as CfnTemplate;
  const measured = join(root, MEASURED_FILE);
  writeCostDocs(template, readMeasured(measured), join(root, DOC_FILE), measured);
  console.log(`wrote the cost tables in ${DOC_FILE}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
