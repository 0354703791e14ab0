import { checkAlarmTopic } from "./alarm-topic.ts";
import { checkAnthropicModels } from "./anthropic-models.ts";
import { checkBedrockModels } from "./bedrock-models.ts";
import { checkBedrockQuotas } from "./bedrock-quotas.ts";
import { checkConsole } from "./console.ts";
import { checkDmarc } from "./dmarc.ts";
import { errName, isBug } from "./errors.ts";
import { checkIdentities } from "./identity.ts";
import { checkLambdaConcurrency } from "./lambda-concurrency.ts";
import { checkModelPermission } from "./model-permission.ts";
import { checkModelSecrets } from "./model-secrets.ts";
import { checkMx } from "./mx.ts";
import { checkOutboundPermission } from "./outbound-permission.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { checkQueues } from "./queues.ts";
import { checkReceiptRules } from "./receipt-rules.ts";
import { type DoctorCheck, fail } from "./report.ts";
import { checkSesAccount } from "./ses-account.ts";
import { checkSesRejections } from "./ses-rejections.ts";
import { checkTables } from "./tables.ts";
import { checkTopicKeys } from "./topic-keys.ts";
import { checkTriggers } from "./triggers.ts";

type Area = (ctx: DoctorContext, ports: DoctorPorts) => Promise<DoctorCheck[]>;

/** In the order of docs/deploy.md's steps: what the first deploy needs, the deployed stack, DNS, alarms, sending. */
export const AREAS: readonly Area[] = [
  checkLambdaConcurrency,
  checkSesAccount,
  checkBedrockModels,
  checkBedrockQuotas,
  checkAnthropicModels,
  checkModelSecrets,
  checkReceiptRules,
  checkTables,
  checkQueues,
  checkTriggers,
  checkIdentities,
  checkMx,
  checkDmarc,
  checkAlarmTopic,
  checkTopicKeys,
  checkOutboundPermission,
  checkModelPermission,
  checkConsole,
  checkSesRejections,
];

/**
 * Run every check. Never throws for an AWS answer (a failed call is a failed check naming the call, the error and
 * the fix); only a bug in the doctor itself throws. Areas run one after another: the report keeps their order and
 * the account sees a handful of calls at a time.
 *
 * Without credentials every call would fail alike (one CredentialsProviderError per check), so the credential chain
 * is asked once first and its failure is the whole report, on one line.
 */
export async function runDoctor(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  try {
    await ports.credentials();
  } catch (err) {
    if (isBug(err)) throw err;
    const first = (err instanceof Error ? err.message : String(err)).split("\n")[0];
    return [
      fail(
        "credentials",
        `no AWS credentials for ${ctx.region} (${errName(err)}: ${first})`,
        "configure them (AWS_PROFILE, `aws sso login`, or `aws configure`), check with `aws sts get-caller-identity`, then run the doctor again",
      ),
    ];
  }
  const out: DoctorCheck[] = [];
  for (const area of AREAS) out.push(...(await area(ctx, ports)));
  return out;
}
