import { checkAlarmTopic } from "./alarm-topic.ts";
import { checkBedrockModels } from "./bedrock-models.ts";
import { checkIdentities } from "./identity.ts";
import { checkLambdaConcurrency } from "./lambda-concurrency.ts";
import { checkMx } from "./mx.ts";
import { checkOutboundPermission } from "./outbound-permission.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { checkQueues } from "./queues.ts";
import { checkReceiptRules } from "./receipt-rules.ts";
import type { DoctorCheck } from "./report.ts";
import { checkSesAccount } from "./ses-account.ts";
import { checkTables } from "./tables.ts";

type Area = (ctx: DoctorContext, ports: DoctorPorts) => Promise<DoctorCheck[]>;

/** In the order of docs/deploy.md's steps: what the first deploy needs, the deployed stack, DNS, alarms, sending. */
export const AREAS: readonly Area[] = [
  checkLambdaConcurrency,
  checkSesAccount,
  checkBedrockModels,
  checkReceiptRules,
  checkTables,
  checkQueues,
  checkIdentities,
  checkMx,
  checkAlarmTopic,
  checkOutboundPermission,
];

/**
 * Run every check. Never throws for an AWS answer (a failed call is a failed check naming the call, the error and
 * the fix); only a bug in the doctor itself throws. Areas run one after another: the report keeps their order and
 * the account sees a handful of calls at a time.
 */
export async function runDoctor(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  for (const area of AREAS) out.push(...(await area(ctx, ports)));
  return out;
}
