import {
  GetFunctionConcurrencyCommand,
  ListEventSourceMappingsCommand,
  ResourceNotFoundException,
} from "@aws-sdk/client-lambda";
import { GetTopicAttributesCommand } from "@aws-sdk/client-sns";
import { describe, expect, it } from "vitest";
import { checkConsole } from "../../cli/doctor/console.ts";
import { checkTopicKeys } from "../../cli/doctor/topic-keys.ts";
import { checkTriggers } from "../../cli/doctor/triggers.ts";
import type { CognitoPort, SchedulerPort } from "../../cli/doctor/unbundled-ports.ts";
import {
  ACCOUNT,
  config,
  deployed,
  fakePorts,
  fixOf,
  HEALTHY_COGNITO,
  META,
  NOTIFICATION_TOPIC,
  only,
  REGION,
  USER_POOL,
  when,
} from "./doctor-fakes.ts";

/** One SQS event source mapping per queue, in `state`, as ListEventSourceMappings returns it. */
const mappings = (state: string, reason = "USER_INITIATED") =>
  when(ListEventSourceMappingsCommand).reply((input) => ({
    ...META,
    EventSourceMappings: [
      {
        UUID: `uuid-${input.EventSourceArn?.split(":").pop()}`,
        EventSourceArn: input.EventSourceArn,
        FunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:Postern-Fn`,
        State: state,
        StateTransitionReason: reason,
      },
    ],
  }));

describe("doctor: queue triggers and the scheduler tick", () => {
  it("every queue's mapping Enabled and the tick ENABLED: ok; mappings are looked up by each queue's ARN", async () => {
    const p = fakePorts();
    const checks = await checkTriggers(deployed(), p);
    expect(checks.map((c) => [c.check, c.status])).toEqual([
      ["trigger verify", "ok"],
      ["trigger agentStep", "ok"],
      ["trigger outbound", "ok"],
      ["schedule tick", "ok"],
    ]);
    expect(p.calls.lambda.map((c) => c.input)).toEqual(
      ["verify", "agentStep", "outbound"].map((q) => ({
        EventSourceArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${q}`,
      })),
    );
  });

  it("a Disabled mapping fails with the command that enables it", async () => {
    const c = only(
      await checkTriggers(deployed(), fakePorts({ lambda: [mappings("Disabled")] })),
      "trigger verify",
    );
    expect(c).toMatchObject({
      status: "fail",
      detail:
        "verify → Postern-Fn is Disabled (USER_INITIATED): messages wait in the queue and nothing fails",
    });
    expect(fixOf(c)).toBe("`aws lambda update-event-source-mapping --uuid uuid-verify --enabled`");
  });

  it("no mapping fails; one still Creating warns", async () => {
    const none = when(ListEventSourceMappingsCommand).reply(() => ({ ...META, EventSourceMappings: [] }));
    const c1 = only(await checkTriggers(deployed(), fakePorts({ lambda: [none] })), "trigger outbound");
    expect(c1).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/^no Lambda function reads outbound/),
    });
    const c2 = only(
      await checkTriggers(deployed(), fakePorts({ lambda: [mappings("Creating")] })),
      "trigger agentStep",
    );
    expect(c2.status).toBe("warn");
  });

  it("a DISABLED schedule fails: scheduled responsibilities never run", async () => {
    const scheduler: SchedulerPort = {
      getSchedule: async (input) => ({ Name: input.Name, GroupName: "default", State: "DISABLED" }),
    };
    const c = only(await checkTriggers(deployed(), fakePorts({ scheduler })), "schedule tick");
    expect(c).toMatchObject({
      status: "fail",
      detail: "Postern-Tick is DISABLED: scheduled responsibilities never run",
    });
    expect(fixOf(c)).toMatch(/Schedules → Postern-Tick → Enable/);
  });

  it("a schedule that is gone fails; without the Scheduler client the check says how to look", async () => {
    const gone: SchedulerPort = {
      getSchedule: async () =>
        Promise.reject(
          Object.assign(new Error("Schedule Postern-Tick does not exist."), {
            name: "ResourceNotFoundException",
          }),
        ),
    };
    const c1 = only(await checkTriggers(deployed(), fakePorts({ scheduler: gone })), "schedule tick");
    expect(c1).toMatchObject({ status: "fail", detail: "no schedule Postern-Tick in group default" });
    const c2 = only(await checkTriggers(deployed(), fakePorts({ scheduler: null })), "schedule tick");
    expect(c2.status).toBe("skipped");
    expect(fixOf(c2)).toContain(
      "aws scheduler get-schedule --name Postern-Tick --group-name default --query State",
    );
  });
});

describe("doctor: topic keys", () => {
  it("both topics KMS-encrypted: ok", async () => {
    const checks = await checkTopicKeys(deployed(), fakePorts());
    expect(checks.map((c) => [c.check, c.status])).toEqual([
      ["topic key notification", "ok"],
      ["topic key alarm", "ok"],
    ]);
  });

  it("a topic without KmsMasterKeyId fails: the mail's envelope passes in the clear", async () => {
    const plain = when(GetTopicAttributesCommand).reply((input) => {
      const Attributes: Record<string, string> = { TopicArn: input.TopicArn ?? "" };
      if (input.TopicArn !== NOTIFICATION_TOPIC) Attributes.KmsMasterKeyId = "alias/postern-alarms";
      return { ...META, Attributes };
    });
    const checks = await checkTopicKeys(deployed(), fakePorts({ sns: [plain] }));
    expect(only(checks, "topic key notification")).toMatchObject({
      status: "fail",
      detail: `${NOTIFICATION_TOPIC} is not encrypted: each mail's envelope and headers pass in the clear`,
    });
    expect(only(checks, "topic key alarm").status).toBe("ok");
  });
});

describe("doctor: the console", () => {
  it("MFA required, one user, a reservation: ok", async () => {
    const checks = await checkConsole(deployed(), fakePorts());
    expect(checks).toEqual([
      { check: "console users", status: "ok", detail: `MFA required, 1 enabled user in ${USER_POOL}` },
      {
        check: "console concurrency",
        status: "ok",
        detail: "Postern-ConsoleFunction reserves 10: the public URL cannot take more",
      },
    ]);
  });

  it("MFA OPTIONAL fails: a password alone opens the console", async () => {
    const cognito: CognitoPort = {
      ...HEALTHY_COGNITO,
      describeUserPool: async (input) => ({
        UserPool: { Id: input.UserPoolId, MfaConfiguration: "OPTIONAL" },
      }),
    };
    const c = only(await checkConsole(deployed(), fakePorts({ cognito })), "console users");
    expect(c).toMatchObject({ status: "fail", detail: expect.stringMatching(/has MFA OPTIONAL/) });
    expect(fixOf(c)).toContain("--mfa-configuration ON");
  });

  it("no enabled user warns: nobody can sign in", async () => {
    const cognito: CognitoPort = {
      ...HEALTHY_COGNITO,
      listUsers: async () => ({ Users: [{ Username: "old", Enabled: false, UserStatus: "CONFIRMED" }] }),
    };
    const c = only(await checkConsole(deployed(), fakePorts({ cognito })), "console users");
    expect(c).toMatchObject({ status: "warn", detail: expect.stringMatching(/no enabled user/) });
    expect(fixOf(c)).toMatch(/admin-create-user/);
  });

  it("without the Cognito client: skipped, with the command to look by hand", async () => {
    const c = only(await checkConsole(deployed(), fakePorts({ cognito: null })), "console users");
    expect(c.status).toBe("skipped");
    expect(fixOf(c)).toContain(`aws cognito-idp describe-user-pool --user-pool-id ${USER_POOL}`);
  });

  it("no reserved concurrency warns and says what to do; 0 reserved fails", async () => {
    const none = when(GetFunctionConcurrencyCommand).reply(() => ({ ...META }));
    const c = only(await checkConsole(deployed(), fakePorts({ lambda: [none] })), "console concurrency");
    expect(c).toMatchObject({ status: "warn", detail: expect.stringMatching(/has no reserved concurrency/) });
    expect(fixOf(c)).toContain("L-B99A9384");
    expect(fixOf(c)).toContain("put-function-concurrency --function-name Postern-ConsoleFunction");
    const zero = when(GetFunctionConcurrencyCommand).reply(() => ({
      ...META,
      ReservedConcurrentExecutions: 0,
    }));
    const c0 = only(await checkConsole(deployed(), fakePorts({ lambda: [zero] })), "console concurrency");
    expect(c0.status).toBe("fail");
  });

  it("asks about the console's own function, and a missing one fails", async () => {
    const p = fakePorts();
    await checkConsole(deployed(), p);
    expect(p.calls.lambda.map((c) => c.input)).toEqual([{ FunctionName: "Postern-ConsoleFunction" }]);
    const gone = when(GetFunctionConcurrencyCommand).throws(
      new ResourceNotFoundException({ message: "Function not found", $metadata: {} }),
    );
    const c = only(await checkConsole(deployed(), fakePorts({ lambda: [gone] })), "console concurrency");
    expect(c).toMatchObject({ status: "fail", detail: "no function Postern-ConsoleFunction" });
  });

  it("a config without the console checks nothing", async () => {
    const off = { ...config, console: { ...config.console, enabled: false } };
    expect(await checkConsole(deployed({ config: off }), fakePorts())).toEqual([]);
  });
});
