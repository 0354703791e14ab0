import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand } from "@aws-sdk/client-lambda";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";

const CHECK = "lambda concurrency";
/** Lambda keeps 100 units unreserved; an account whose quota is lower keeps all of it (its error names the floor). */
export const UNRESERVED_FLOOR = 100;
/** The SQS event source's smallest maxConcurrency (infra/constructs/pipeline-function.ts). */
const MIN_CONCURRENCY = 2;
const QUOTA_FIX =
  "Service Quotas → AWS Lambda → Concurrent executions (quota code L-B99A9384): request 1000, e.g. " +
  "`aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 1000`";

/**
 * The account's Lambda concurrency against agent-step's. A reservation must leave at least 100 units unreserved
 * (or, on an account whose quota is under 100, the whole quota: new accounts often have 10, where no reservation
 * fits), or the deploy fails; a reservation the deployed function already holds is counted back in. Without a
 * reservation the deploy succeeds, but on a small quota agent-step can take every execution and throttle verify
 * and outbound.
 */
export async function checkLambdaConcurrency(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  let quota: number | undefined;
  let unreserved: number | undefined;
  try {
    const s = await ports.lambda.send(new GetAccountSettingsCommand({}));
    quota = s.AccountLimit?.ConcurrentExecutions;
    unreserved = s.AccountLimit?.UnreservedConcurrentExecutions;
  } catch (err) {
    return [callFailed(CHECK, "lambda:GetAccountSettings", err)];
  }
  if (quota === undefined || unreserved === undefined)
    return [
      warn(
        CHECK,
        "GetAccountSettings returned no AccountLimit",
        "run `aws lambda get-account-settings` and compare",
      ),
    ];
  const { concurrency, reserve } = ctx.agentStep;
  const facts = `quota ${quota}, unreserved ${unreserved}`;
  if (!reserve) {
    if (quota > UNRESERVED_FLOOR)
      return [ok(CHECK, `${facts}; agent-step runs at most ${concurrency} at once and reserves none`)];
    return [
      warn(
        CHECK,
        `${facts}: every function of the account shares ${quota} executions, and agent-step alone may use ${Math.min(concurrency, quota)}; ` +
          "verify and outbound then get throttled (their messages retry, and land in the DLQ after 5 receives)",
        QUOTA_FIX,
      ),
    ];
  }

  let held = 0;
  const fn = ctx.resources?.agentStep?.functionName;
  if (fn) {
    try {
      const c = await ports.lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: fn }));
      held = c.ReservedConcurrentExecutions ?? 0;
    } catch (err) {
      if (!isError(err, "ResourceNotFoundException"))
        return [callFailed(CHECK, "lambda:GetFunctionConcurrency", err)];
    }
  }
  const floor = Math.min(UNRESERVED_FLOOR, quota);
  const left = unreserved + held - concurrency;
  if (left >= floor)
    return [
      ok(
        CHECK,
        `${facts}; reserving ${concurrency} for agent-step leaves ${left} (Lambda's minimum ${floor})`,
      ),
    ];
  const fits = unreserved + held - floor;
  const smaller =
    fits >= MIN_CONCURRENCY
      ? `, or reserve less (\`-c agentStepConcurrency=${fits}\` fits)`
      : ", or deploy without `-c reserveAgentStepConcurrency=true` (no reservation fits this account)";
  return [
    fail(
      CHECK,
      `${facts}: reserving ${concurrency} for agent-step would leave ${left} unreserved, below Lambda's minimum of ${floor}; the deploy fails`,
      `${QUOTA_FIX}${smaller}`,
    ),
  ];
}
