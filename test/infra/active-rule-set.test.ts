// create mode's custom resource: deleting the stack deactivates Postern's rule set only if it is still active.

import type { DescribeActiveReceiptRuleSetCommandOutput } from "@aws-sdk/client-ses";
import { DescribeActiveReceiptRuleSetCommand, SetActiveReceiptRuleSetCommand } from "@aws-sdk/client-ses";
import type { CloudFormationCustomResourceEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { onEvent, ruleSetChange, sesRuleSetPorts } from "../../infra/custom-resources/active-rule-set.ts";

const event = (type: CloudFormationCustomResourceEvent["RequestType"]) =>
  ({
    RequestType: type,
    ResourceProperties: { ServiceToken: "arn", RuleSetName: "postern" },
    PhysicalResourceId: "postern-active-postern",
  }) as unknown as CloudFormationCustomResourceEvent;

/** An SES client fake answering DescribeActiveReceiptRuleSet as the SDK shapes it, recording what is sent. */
function ses(active: string | null) {
  const sent: unknown[] = [];
  const client = {
    async send(command: unknown) {
      sent.push(command);
      if (command instanceof DescribeActiveReceiptRuleSetCommand) {
        const out: DescribeActiveReceiptRuleSetCommandOutput = {
          $metadata: {},
          ...(active === null ? {} : { Metadata: { Name: active, CreatedTimestamp: new Date() }, Rules: [] }),
        };
        return out;
      }
      return { $metadata: {} };
    },
  };
  return { client: client as never, sent };
}

describe("the active rule set custom resource", () => {
  it.each([
    ["Create", null, { activate: "postern" }],
    ["Update", "other", { activate: "postern" }],
    ["Delete", "postern", { activate: null }],
    ["Delete", "other-teams-set", "leave"],
    ["Delete", null, "leave"],
  ] as const)("%s with %s active → %j", (type, active, want) => {
    expect(ruleSetChange(type, "postern", active)).toEqual(want);
  });

  it("on delete, deactivates only when Postern's set is still the active one", async () => {
    const ours = ses("postern");
    expect((await onEvent(event("Delete"), sesRuleSetPorts(ours.client))).Data.change).toBe("deactivated");
    const set = ours.sent.find(
      (c) => c instanceof SetActiveReceiptRuleSetCommand,
    ) as SetActiveReceiptRuleSetCommand;
    expect(set.input).toEqual({});

    const theirs = ses("other-teams-set");
    expect((await onEvent(event("Delete"), sesRuleSetPorts(theirs.client))).Data.change).toBe("left-as-is");
    expect(theirs.sent.some((c) => c instanceof SetActiveReceiptRuleSetCommand)).toBe(false);
  });

  it("on create, activates Postern's set", async () => {
    const fresh = ses(null);
    const out = await onEvent(event("Create"), sesRuleSetPorts(fresh.client));
    expect(out).toEqual({ PhysicalResourceId: "postern-active-postern", Data: { change: "activated" } });
    const set = fresh.sent.find(
      (c) => c instanceof SetActiveReceiptRuleSetCommand,
    ) as SetActiveReceiptRuleSetCommand;
    expect(set.input).toEqual({ RuleSetName: "postern" });
  });
});
