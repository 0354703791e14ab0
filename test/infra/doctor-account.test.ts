import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  LambdaServiceException,
  ResourceNotFoundException,
} from "@aws-sdk/client-lambda";
import {
  GetAccountCommand,
  type GetAccountCommandOutput,
  TooManyRequestsException,
} from "@aws-sdk/client-sesv2";
import { describe, expect, it } from "vitest";
import { checkLambdaConcurrency } from "../../cli/doctor/lambda-concurrency.ts";
import { checkSesAccount } from "../../cli/doctor/ses-account.ts";
import { beforeDeploy, deployed, fakePorts, fixOf, META, only, when } from "./doctor-fakes.ts";

const settings = (quota: number, unreserved: number) =>
  when(GetAccountSettingsCommand).reply(() => ({
    ...META,
    AccountLimit: {
      ConcurrentExecutions: quota,
      UnreservedConcurrentExecutions: unreserved,
      TotalCodeSize: 80530636800,
    },
    AccountUsage: { FunctionCount: 0, TotalCodeSize: 0 },
  }));
const concurrency = (ctx = beforeDeploy(), ...answers: Parameters<typeof fakePorts>[0][]) =>
  checkLambdaConcurrency(ctx, fakePorts(Object.assign({}, ...answers)));

const reserving = { agentStep: { concurrency: 10, reserve: true } };

describe("doctor: Lambda concurrency quota against agent-step's", () => {
  it("a default account (1000), no reservation: ok", async () => {
    const [c] = await concurrency(beforeDeploy(), { lambda: [settings(1000, 1000)] });
    expect(c).toEqual({
      check: "lambda concurrency",
      status: "ok",
      detail: "quota 1000, unreserved 1000; agent-step runs at most 10 at once and reserves none",
    });
  });

  it("a new account with a quota of 10, no reservation: warns that agent-step can starve verify and outbound", async () => {
    const [c] = await concurrency(beforeDeploy(), { lambda: [settings(10, 10)] });
    expect(c?.status).toBe("warn");
    expect(c?.detail).toMatch(
      /shares 10 executions, and agent-step alone may use 10; verify and outbound then get throttled/,
    );
    expect(fixOf(c)).toMatch(/quota-code L-B99A9384 --desired-value 1000/);
  });

  it("a reservation on an account with a quota of 10: fails, the deploy would; fix is the quota or no reservation", async () => {
    const [c] = await concurrency(beforeDeploy(reserving), { lambda: [settings(10, 10)] });
    expect(c?.status).toBe("fail");
    expect(c?.detail).toMatch(/would leave 0 unreserved, below Lambda's minimum of 10; the deploy fails/);
    expect(fixOf(c)).toMatch(/quota-code L-B99A9384 --desired-value 1000/);
    expect(fixOf(c)).toMatch(/deploy without `-c reserveAgentStepConcurrency=true` \(no reservation fits/);
  });

  it("a reservation at the default quota: ok, and says what it leaves", async () => {
    const [c] = await concurrency(beforeDeploy(reserving), { lambda: [settings(1000, 1000)] });
    expect(c?.detail).toBe(
      "quota 1000, unreserved 1000; reserving 10 for agent-step leaves 990 (Lambda's minimum 100)",
    );
  });

  it("a reservation when other functions hold most of the pool: fails and names the size that still fits", async () => {
    const [c] = await concurrency(beforeDeploy(reserving), { lambda: [settings(1000, 105)] });
    expect(c?.status).toBe("fail");
    expect(c?.detail).toMatch(/would leave 95 unreserved, below Lambda's minimum of 100/);
    expect(fixOf(c)).toMatch(/-c agentStepConcurrency=5` fits/);
  });

  it("the deployed agent-step's own reservation counts back in (a redeploy at the same size fits)", async () => {
    const p = fakePorts({ lambda: [settings(1000, 100)] });
    const [c] = await checkLambdaConcurrency(deployed(reserving), p);
    expect(c?.status).toBe("ok");
    expect(p.calls.lambda).toEqual([
      { command: "GetAccountSettingsCommand", input: {} },
      { command: "GetFunctionConcurrencyCommand", input: { FunctionName: "Postern-AgentStep" } },
    ]);
  });

  it("a deployed function that is gone holds nothing (ResourceNotFoundException)", async () => {
    const [c] = await concurrency(deployed(reserving), {
      lambda: [
        settings(1000, 100),
        when(GetFunctionConcurrencyCommand).throws(
          new ResourceNotFoundException({
            message: "Function not found: arn:aws:lambda:eu-west-1:111111111111:function:Postern-AgentStep",
            $metadata: { httpStatusCode: 404 },
            Type: "User",
          }),
        ),
      ],
    });
    expect(c?.status).toBe("fail");
  });

  it("GetAccountSettings denied: a failed check naming the call and the permission, no throw", async () => {
    const denied = new LambdaServiceException({
      name: "AccessDeniedException",
      $fault: "client",
      $metadata: { httpStatusCode: 403 },
      message:
        "User: arn:aws:iam::111111111111:user/ops is not authorized to perform: lambda:GetAccountSettings",
    });
    const [c] = await concurrency(beforeDeploy(), {
      lambda: [when(GetAccountSettingsCommand).throws(denied)],
    });
    expect(c?.status).toBe("fail");
    expect(c?.detail).toMatch(
      /^lambda:GetAccountSettings failed \(AccessDeniedException: User: .* is not authorized/,
    );
    expect(fixOf(c)).toBe(
      "allow lambda:GetAccountSettings to the identity running the doctor (or run it with the identity that deploys)",
    );
  });
});

/** GetAccount answering `over` (typed as the SDK's output, without $metadata). */
const account = (over: Omit<GetAccountCommandOutput, "$metadata">) =>
  checkSesAccount(
    deployed(),
    fakePorts({ ses: [when(GetAccountCommand).reply(() => ({ ...META, ...over }))] }),
  );

describe("doctor: SES sending and production access", () => {
  it("production access and healthy sending: two oks with the quota", async () => {
    const checks = await checkSesAccount(deployed(), fakePorts());
    expect(checks).toEqual([
      { check: "ses sending", status: "ok", detail: "50000/day, 14/s, 3 sent in 24 h" },
      { check: "ses production access", status: "ok", detail: "granted in eu-west-1" },
    ]);
  });

  it("the sandbox, never requested: warns, fix names the console, the CLI and verifying the tester", async () => {
    const c = only(
      await account({
        ProductionAccessEnabled: false,
        SendingEnabled: true,
        SendQuota: { Max24HourSend: 200, MaxSendRate: 1 },
      }),
      "ses production access",
    );
    expect(c.status).toBe("warn");
    expect(c.detail).toMatch(/SES sandbox here: agents can answer only verified addresses, 200 mails a day/);
    expect(fixOf(c)).toMatch(/Request production access .*put-account-details --production-access-enabled/);
    expect(fixOf(c)).toMatch(/aws sesv2 create-email-identity --email-identity you@example.com/);
  });

  it("the sandbox, request PENDING: warns, wait", async () => {
    const c = only(
      await account({
        ProductionAccessEnabled: false,
        Details: { ReviewDetails: { Status: "PENDING", CaseId: "42" } },
      }),
      "ses production access",
    );
    expect(c).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/under review \(support case 42\)/),
    });
    expect(fixOf(c)).toMatch(/^wait for AWS's answer/);
  });

  it("the sandbox, request DENIED: fails, answer the case", async () => {
    const c = only(
      await account({ ProductionAccessEnabled: false, Details: { ReviewDetails: { Status: "DENIED" } } }),
      "ses production access",
    );
    expect(c.status).toBe("fail");
    expect(fixOf(c)).toMatch(/^answer the support case/);
  });

  it("the sandbox, request FAILED: warns, submit again", async () => {
    const c = only(
      await account({ ProductionAccessEnabled: false, Details: { ReviewDetails: { Status: "FAILED" } } }),
      "ses production access",
    );
    expect(c.status).toBe("warn");
    expect(fixOf(c)).toMatch(/^submit it again/);
  });

  it("sending disabled: fails, fix re-enables it", async () => {
    const c = only(await account({ SendingEnabled: false, ProductionAccessEnabled: true }), "ses sending");
    expect(c.status).toBe("fail");
    expect(fixOf(c)).toBe(
      "enable it: `aws sesv2 put-account-sending-attributes --sending-enabled --region eu-west-1`",
    );
  });

  it("SHUTDOWN fails and PROBATION warns, each pointing at reputation", async () => {
    const shut = only(await account({ SendingEnabled: true, EnforcementStatus: "SHUTDOWN" }), "ses sending");
    expect(shut.status).toBe("fail");
    expect(fixOf(shut)).toMatch(/SES paused sending/);
    const probation = only(
      await account({ SendingEnabled: true, EnforcementStatus: "PROBATION" }),
      "ses sending",
    );
    expect(probation.status).toBe("warn");
    expect(fixOf(probation)).toMatch(/bring bounces and complaints down/);
  });

  it("at 90% of the daily quota: warns, request an increase", async () => {
    const c = only(
      await account({
        SendingEnabled: true,
        SendQuota: { Max24HourSend: 200, MaxSendRate: 1, SentLast24Hours: 190 },
      }),
      "ses sending",
    );
    expect(c).toMatchObject({
      status: "warn",
      detail: "near the daily quota: 200/day, 1/s, 190 sent in 24 h",
    });
    expect(fixOf(c)).toMatch(/sending quota increase/);
  });

  it("GetAccount throttled: a failed check that says to run again", async () => {
    const [c] = await checkSesAccount(
      deployed(),
      fakePorts({
        ses: [
          when(GetAccountCommand).throws(
            new TooManyRequestsException({
              message: "Too many requests",
              $metadata: { httpStatusCode: 429 },
            }),
          ),
        ],
      }),
    );
    expect(c).toMatchObject({ check: "ses account", status: "fail" });
    expect(fixOf(c)).toMatch(/throttled the call: run the doctor again/);
  });
});
