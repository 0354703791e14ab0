import { PosternError } from "../../shared/errors.ts";
// The custom resource behind `receiptRuleSet.mode: "create"`: activates Postern's receipt rule set on create and
// update, and on delete deactivates it only if it is still the active one. SES has one active rule set per region;
// deactivating blindly would switch off whatever set an operator activated since.

import {
  DescribeActiveReceiptRuleSetCommand,
  SESClient,
  SetActiveReceiptRuleSetCommand,
} from "@aws-sdk/client-ses";
import type { CloudFormationCustomResourceEvent } from "aws-lambda";

/** What to do: activate a set by name, deactivate (`null`), or leave the region as it is. */
export type RuleSetChange = { readonly activate: string | null } | "leave";

export function ruleSetChange(
  requestType: CloudFormationCustomResourceEvent["RequestType"],
  ours: string,
  active: string | null,
): RuleSetChange {
  if (requestType !== "Delete") return { activate: ours };
  return active === ours ? { activate: null } : "leave";
}

export interface RuleSetPorts {
  active(): Promise<string | null>;
  activate(name: string | null): Promise<void>;
}

export function sesRuleSetPorts(ses: Pick<SESClient, "send"> = new SESClient({})): RuleSetPorts {
  return {
    async active() {
      const r = await ses.send(new DescribeActiveReceiptRuleSetCommand({}));
      return r.Metadata?.Name ?? null;
    },
    async activate(name) {
      // An empty request deactivates: SES then has no active rule set in the region.
      await ses.send(new SetActiveReceiptRuleSetCommand(name === null ? {} : { RuleSetName: name }));
    },
  };
}

/** The Provider framework's onEvent: errors throw (CloudFormation then fails the operation and says why). */
export async function onEvent(
  event: CloudFormationCustomResourceEvent,
  ports: RuleSetPorts = sesRuleSetPorts(),
): Promise<{ PhysicalResourceId: string; Data: { change: string } }> {
  const ours = String(event.ResourceProperties.RuleSetName ?? "");
  if (!ours) throw new PosternError("invalid-argument", "RuleSetName is required");
  const change = ruleSetChange(
    event.RequestType,
    ours,
    event.RequestType === "Delete" ? await ports.active() : null,
  );
  if (change !== "leave") await ports.activate(change.activate);
  return {
    PhysicalResourceId: `postern-active-${ours}`,
    Data: {
      change: change === "leave" ? "left-as-is" : change.activate === null ? "deactivated" : "activated",
    },
  };
}
