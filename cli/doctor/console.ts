import { GetFunctionConcurrencyCommand } from "@aws-sdk/client-lambda";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok, skipped, warn } from "./report.ts";

const OLDER =
  "save the PosternResources output of the current stack again (older stacks did not include the console)";
/** ListUsers' page size limit (Cognito API reference: Limit 0-60). */
const PAGE = 60;

/**
 * With `console.enabled`: the console's user pool requires MFA and has someone who can sign in, and the console's
 * function has reserved concurrency. Its function URL is public (Cognito guards the pages, not the URL), so without
 * a reservation anonymous requests can take the account's concurrency from verify and outbound.
 */
export async function checkConsole(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  if (!ctx.config.console.enabled) return [];
  if (!ctx.resources) return [notDeployed("console")];
  const c = ctx.resources.console;
  if (!c) return [skipped("console users", "the resources file does not name the console", OLDER)];
  return [await users(c.userPoolId, ports), await concurrency(c.functionName, ports)];
}

async function users(pool: string, ports: DoctorPorts): Promise<DoctorCheck> {
  const check = "console users";
  if (!ports.cognito)
    return skipped(
      check,
      "this install has no Cognito client (@aws-sdk/client-cognito-identity-provider)",
      `\`aws cognito-idp describe-user-pool --user-pool-id ${pool} --query "UserPool.[MfaConfiguration,EstimatedNumberOfUsers]"\` ` +
        "must say ON and at least 1",
    );
  try {
    const p = await ports.cognito.describeUserPool({ UserPoolId: pool });
    const mfa = p.UserPool?.MfaConfiguration ?? "OFF";
    if (mfa !== "ON")
      return fail(
        check,
        `user pool ${pool} has MFA ${mfa}: a stolen password alone opens the console`,
        `deploy the stack again (it requires MFA), or \`aws cognito-idp set-user-pool-mfa-config --user-pool-id ${pool} ` +
          "--software-token-mfa-configuration Enabled=true --mfa-configuration ON`",
      );
    let enabled = 0;
    let PaginationToken: string | undefined;
    for (let page = 0; page < 10 && enabled === 0; page++) {
      const r = await ports.cognito.listUsers({
        UserPoolId: pool,
        Limit: PAGE,
        ...(PaginationToken ? { PaginationToken } : {}),
      });
      enabled += (r.Users ?? []).filter((u) => u.Enabled !== false).length;
      PaginationToken = r.PaginationToken;
      if (!PaginationToken) break;
    }
    if (enabled === 0)
      return warn(
        check,
        `user pool ${pool} has no enabled user: nobody can sign in to the console`,
        "invite an operator as docs/console.md shows (`aws cognito-idp admin-create-user ...` and add them to a group)",
      );
    return ok(check, `MFA required, ${enabled === 1 ? "1 enabled user" : "enabled users"} in ${pool}`);
  } catch (err) {
    if (isError(err, "ResourceNotFoundException"))
      return fail(
        check,
        `no user pool ${pool}`,
        "check AWS_REGION and that the resources file belongs to this stack",
      );
    return callFailed(check, "cognito-idp:DescribeUserPool", err);
  }
}

async function concurrency(fn: string, ports: DoctorPorts): Promise<DoctorCheck> {
  const check = "console concurrency";
  let reserved: number | undefined;
  try {
    reserved = (await ports.lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: fn })))
      .ReservedConcurrentExecutions;
  } catch (err) {
    if (isError(err, "ResourceNotFoundException"))
      return fail(
        check,
        `no function ${fn}`,
        "check AWS_REGION and that the resources file belongs to this stack",
      );
    return callFailed(check, "lambda:GetFunctionConcurrency", err);
  }
  if (reserved === 0)
    return fail(
      check,
      `${fn} has 0 reserved executions: every console request is throttled`,
      `\`aws lambda put-function-concurrency --function-name ${fn} --reserved-concurrent-executions 5\``,
    );
  if (reserved !== undefined) return ok(check, `${fn} reserves ${reserved}: the public URL cannot take more`);
  return warn(
    check,
    `${fn} has no reserved concurrency: requests to its public URL, signed in or not, share the account's ` +
      "executions with verify and outbound",
    "deploy the current stack (it reserves the console's concurrency where the account allows); if Lambda refuses " +
      "because under 100 executions would stay unreserved, raise the quota (Service Quotas → AWS Lambda → Concurrent " +
      `executions, L-B99A9384), then \`aws lambda put-function-concurrency --function-name ${fn} --reserved-concurrent-executions 5\``,
  );
}
