import { DescribeUserPoolCommand, ListUsersCommand } from "@aws-sdk/client-cognito-identity-provider";
import { GetScheduleCommand } from "@aws-sdk/client-scheduler";
import { ListServiceQuotasCommand } from "@aws-sdk/client-service-quotas";
import { describe, expect, it } from "vitest";
import { awsPorts, cognitoPort, quotasPort, schedulerPort } from "../../cli/doctor/ports.ts";

/** A client whose `send` records the command it was handed and answers `answer`. */
function recordingClient(answer: unknown) {
  const sent: unknown[] = [];
  const send = async (command: unknown) => {
    sent.push(command);
    return answer;
  };
  return { sent, client: { send } as never };
}

describe("doctor: the real adapters of the doctor-only services", () => {
  it("awsPorts wires Cognito, Scheduler and Service Quotas (their checks run, never skip, against AWS)", () => {
    const ports = awsPorts("eu-west-1");
    expect(ports.cognito).not.toBeNull();
    expect(ports.scheduler).not.toBeNull();
    expect(ports.quotas?.("us-east-1")).toBeDefined();
  });

  it("each port sends its service's own command with the check's input", async () => {
    const pool = recordingClient({ UserPool: { Id: "p", MfaConfiguration: "ON" } });
    const cognito = cognitoPort(pool.client);
    expect(await cognito.describeUserPool({ UserPoolId: "p" })).toEqual({
      UserPool: { Id: "p", MfaConfiguration: "ON" },
    });
    await cognito.listUsers({ UserPoolId: "p", Limit: 60 });
    expect(pool.sent.map((c) => (c as object).constructor)).toEqual([
      DescribeUserPoolCommand,
      ListUsersCommand,
    ]);
    expect((pool.sent[1] as ListUsersCommand).input).toEqual({ UserPoolId: "p", Limit: 60 });

    const tick = recordingClient({ State: "ENABLED" });
    await schedulerPort(tick.client).getSchedule({ Name: "tick", GroupName: "default" });
    expect(tick.sent[0]).toBeInstanceOf(GetScheduleCommand);
    expect((tick.sent[0] as GetScheduleCommand).input).toEqual({ Name: "tick", GroupName: "default" });

    const quotas = recordingClient({ Quotas: [] });
    await quotasPort(quotas.client).listServiceQuotas({ ServiceCode: "bedrock" });
    expect(quotas.sent[0]).toBeInstanceOf(ListServiceQuotasCommand);
    expect((quotas.sent[0] as ListServiceQuotasCommand).input).toEqual({ ServiceCode: "bedrock" });
  });
});
