import {
  GetConfigurationSetCommand,
  GetEmailIdentityCommand,
  type GetEmailIdentityCommandOutput,
} from "@aws-sdk/client-sesv2";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";

/** The stack's custom MAIL FROM label (infra/constructs/sending-identities.ts). */
const MAIL_FROM_LABEL = "bounce";

const DKIM_FIX: Record<string, string> = {
  PENDING:
    "add the three DKIM CNAME records from the stack outputs (Dns<n>x1..3); SES looks for them for up to 72 hours",
  NOT_STARTED: "add the three DKIM CNAME records from the stack outputs (Dns<n>x1..3)",
  FAILED:
    "SES stopped looking for the DKIM CNAMEs: add them exactly as the stack outputs them (Dns<n>x1..3), then have SES look again (SES console → Identities → the domain)",
  TEMPORARY_FAILURE:
    "SES could not read the DKIM CNAMEs lately: check that they still resolve (`dig CNAME <token>._domainkey.<domain>`)",
};

/**
 * Each domain's SES identity: verified for sending with Easy DKIM, custom MAIL FROM set up. Before the first deploy
 * the identity must NOT exist yet: the stack creates it, and CloudFormation cannot create one that exists.
 */
export async function checkIdentities(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = ctx.resources ? [] : await configurationSetFree(ctx, ports);
  for (const domain of ctx.config.domains) {
    const check = `identity ${domain}`;
    let id: GetEmailIdentityCommandOutput;
    try {
      id = await ports.ses.send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
    } catch (err) {
      if (!isError(err, "NotFoundException")) out.push(callFailed(check, "ses:GetEmailIdentity", err));
      else if (ctx.resources) out.push(missing(check, domain, ctx.region));
      else out.push(ok(check, "not in SES yet: the stack creates it"));
      continue;
    }
    if (!ctx.resources) {
      out.push(alreadyThere(check, domain));
      continue;
    }
    const dkim = id.DkimAttributes?.Status ?? "NOT_STARTED";
    if (id.VerifiedForSendingStatus && dkim === "SUCCESS") out.push(ok(check, "verified, DKIM SUCCESS"));
    else
      out.push(
        fail(
          check,
          `not verified for sending (DKIM ${dkim})`,
          (DKIM_FIX[dkim] ?? DKIM_FIX.NOT_STARTED ?? "").replace("<domain>", domain),
        ),
      );
    const mailFrom = id.MailFromAttributes?.MailFromDomainStatus;
    if (mailFrom && mailFrom !== "SUCCESS")
      out.push(
        warn(
          `mail-from ${domain}`,
          `MAIL FROM domain ${MAIL_FROM_LABEL}.${domain} is ${mailFrom}: bounces use amazonses.com and SPF does not align`,
          `add \`${MAIL_FROM_LABEL}.${domain} MX 10 feedback-smtp.${ctx.region}.amazonses.com\` and ` +
            `\`${MAIL_FROM_LABEL}.${domain} TXT "v=spf1 include:amazonses.com ~all"\` (stack outputs Dns<n>x4, Dns<n>x5)`,
        ),
      );
  }
  return out;
}

const missing = (check: string, domain: string, region: string): DoctorCheck =>
  fail(
    check,
    `no SES identity for ${domain} in ${region}`,
    "the stack creates it: check that AWS_REGION is the stack's region and that the deploy finished",
  );

const alreadyThere = (check: string, domain: string): DoctorCheck =>
  fail(
    check,
    `${domain} is already an SES identity here: CloudFormation cannot create it, so the deploy fails`,
    `if nothing else sends as ${domain}, delete it (\`aws sesv2 delete-email-identity --email-identity ${domain}\`) ` +
      "and deploy; if the stack is already deployed, pass `--resources FILE`",
  );

/** Before the first deploy: a configuration set the config names must not exist yet (the stack creates it). */
async function configurationSetFree(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const name = ctx.config.outbound.configurationSet;
  if (!name) return [];
  const check = `configuration set ${name}`;
  try {
    await ports.ses.send(new GetConfigurationSetCommand({ ConfigurationSetName: name }));
  } catch (err) {
    if (isError(err, "NotFoundException")) return [ok(check, "not in SES yet: the stack creates it")];
    return [callFailed(check, "ses:GetConfigurationSet", err)];
  }
  return [
    fail(
      check,
      `${name} already exists in SES here: CloudFormation cannot create it, so the deploy fails`,
      `name another one in "outbound": {"configurationSet": ...} (or leave it out for a generated name), or delete ${name} if nothing uses it`,
    ),
  ];
}
