import {
  DescribeActiveReceiptRuleSetCommand,
  type DescribeActiveReceiptRuleSetCommandOutput,
  type ReceiptRule,
} from "@aws-sdk/client-ses";
import { PREFIXES } from "../../shared/config/index.ts";
import { callFailed } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";

const CHECK = "receipt rule set";
const activate = (name: string) => `aws ses set-active-receipt-rule-set --rule-set-name ${name}`;

/**
 * SES has one active receipt rule set per region. `existing` mode adds Postern's rules to the named set, which must
 * be the active one; `create` mode makes its own set and activates it, replacing whatever was active. After the
 * deploy: each domain has an enabled rule in the active set storing to this stack's bucket under `inbound/` and
 * notifying, and no earlier rule stops processing for that domain.
 */
export async function checkReceiptRules(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  let active: DescribeActiveReceiptRuleSetCommandOutput;
  try {
    active = await ports.sesReceipt.send(new DescribeActiveReceiptRuleSetCommand({}));
  } catch (err) {
    return [callFailed(CHECK, "ses:DescribeActiveReceiptRuleSet", err)];
  }
  const { mode, name } = ctx.config.receiptRuleSet;
  const current = active.Metadata?.Name;
  const rules = active.Rules ?? [];
  const deployed = ctx.resources !== null;

  if (!current) {
    if (mode === "create" && !deployed)
      return [ok(CHECK, `none active in ${ctx.region}: the stack creates ${name} and activates it`)];
    return [
      fail(
        CHECK,
        `no receipt rule set is active in ${ctx.region}: SES receives no mail here`,
        mode === "existing" && !deployed
          ? `create and activate ${name}: \`aws ses create-receipt-rule-set --rule-set-name ${name} && ${activate(name)}\``
          : `\`${activate(name)}\``,
      ),
    ];
  }
  if (current !== name) return [otherSetActive(mode, name, current, rules.length, deployed)];
  if (!deployed) {
    if (mode === "create")
      return [
        fail(
          CHECK,
          `${name} already exists and is active: CloudFormation cannot create it, so the deploy fails`,
          "if the stack is deployed, pass `--resources FILE`; otherwise delete the leftover set " +
            `(\`aws ses delete-receipt-rule-set --rule-set-name ${name}\`, after deactivating it) or choose another name`,
        ),
      ];
    return [
      ok(CHECK, `${name} is active (${rules.length} rule(s)): the stack adds one rule per domain to it`),
      ...taken(ctx.config.domains, name, rules),
    ];
  }
  return ctx.config.domains.map((domain) => domainRule(domain, name, rules, ctx.resources?.bucket ?? ""));
}

function otherSetActive(
  mode: "existing" | "create",
  name: string,
  current: string,
  count: number,
  deployed: boolean,
): DoctorCheck {
  const detail = `the active set is ${current} (${count} rule(s)), Postern's rules are in ${name}`;
  if (mode === "existing")
    return fail(
      CHECK,
      `${detail}: SES never runs them`,
      `set "receiptRuleSet": {"mode": "existing", "name": "${current}"} in the config and deploy again, or ` +
        `\`${activate(name)}\` (this stops ${current}'s rules)`,
    );
  if (!deployed)
    return warn(
      CHECK,
      `the active set is ${current} (${count} rule(s)): create mode activates ${name} instead, and ${current}'s rules stop receiving`,
      `to keep them, use "receiptRuleSet": {"mode": "existing", "name": "${current}"}; or deploy to a region that receives no other mail`,
    );
  return fail(
    CHECK,
    `${detail}: another set was activated after the deploy`,
    `\`${activate(name)}\` (this stops ${current}'s rules), or deploy again`,
  );
}

const matchesDomain = (rule: ReceiptRule, domain: string) =>
  !rule.Recipients || rule.Recipients.length === 0 || rule.Recipients.includes(domain);

function domainRule(domain: string, set: string, rules: readonly ReceiptRule[], bucket: string): DoctorCheck {
  const check = `receipt rule ${domain}`;
  const index = rules.findIndex(
    (r) =>
      r.Enabled === true &&
      r.Recipients?.includes(domain) &&
      (r.Actions ?? []).some(
        (a) =>
          a.S3Action?.BucketName === bucket &&
          a.S3Action.ObjectKeyPrefix === PREFIXES.inbound &&
          a.S3Action.TopicArn !== undefined,
      ),
  );
  const rule = rules[index];
  if (!rule)
    return fail(
      check,
      `no enabled rule in ${set} stores mail for ${domain} in ${bucket}/${PREFIXES.inbound} and notifies`,
      "deploy again: the stack owns that rule; if it is there but disabled, enable it in SES console → Email receiving",
    );
  const stopper = rules
    .slice(0, index)
    .find(
      (r) => r.Enabled === true && matchesDomain(r, domain) && (r.Actions ?? []).some((a) => a.StopAction),
    );
  if (stopper)
    return fail(
      check,
      `rule ${stopper.Name} comes before ${rule.Name} and stops the rule set for ${domain}: Postern never sees the mail`,
      `move ${rule.Name} before ${stopper.Name} (SES console → Email receiving → ${set}, or \`aws ses set-receipt-rule-position\`), or narrow ${stopper.Name}'s recipients`,
    );
  return ok(check, `${rule.Name} in ${set} (active)`);
}

/**
 * Before the first deploy in `existing` mode: a rule with the name the stack gives a domain's rule
 * (`postern-<domain>`, infra/constructs/mail-intake.ts receiptRuleName) must not be in the set yet, or CloudFormation
 * cannot create it (another Postern stack in this region, or a leftover). Longer names are hashed: not checked.
 */
function taken(domains: readonly string[], set: string, rules: readonly ReceiptRule[]): DoctorCheck[] {
  return domains.flatMap((domain) => {
    const ruleName = `postern-${domain}`;
    if (ruleName.length > 64 || !rules.some((r) => r.Name === ruleName)) return [];
    return [
      fail(
        `receipt rule ${domain}`,
        `${set} already has a rule ${ruleName}: CloudFormation cannot create it, so the deploy fails`,
        "if another Postern stack in this region owns it, run the doctor with that stack's --resources instead; if it " +
          `is a leftover, delete it (\`aws ses delete-receipt-rule --rule-set-name ${set} --rule-name ${ruleName}\`)`,
      ),
    ];
  });
}
