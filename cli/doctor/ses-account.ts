import { GetAccountCommand, type GetAccountCommandOutput } from "@aws-sdk/client-sesv2";
import { callFailed } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";

const SENDING = "ses sending";
const ACCESS = "ses production access";

/** `SendQuota` as one phrase: "200/day, 1/s, 3 sent in 24 h". */
function quotaText(q: GetAccountCommandOutput["SendQuota"]): string {
  if (!q) return "no send quota reported";
  return `${q.Max24HourSend ?? "?"}/day, ${q.MaxSendRate ?? "?"}/s, ${q.SentLast24Hours ?? 0} sent in 24 h`;
}

/**
 * The SES account in this region: sending enabled and not shut down, and production access (out of the sandbox,
 * where mail goes only to verified addresses, 200 a day). Production access is per region.
 */
export async function checkSesAccount(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  let a: GetAccountCommandOutput;
  try {
    a = await ports.ses.send(new GetAccountCommand({}));
  } catch (err) {
    return [callFailed("ses account", "ses:GetAccount", err)];
  }
  const out: DoctorCheck[] = [];
  const enforcement = a.EnforcementStatus ?? "HEALTHY";
  if (a.SendingEnabled === false || enforcement === "SHUTDOWN")
    out.push(
      fail(
        SENDING,
        `sending is ${a.SendingEnabled === false ? "disabled" : "enabled"} in ${ctx.region} (reputation ${enforcement})`,
        enforcement === "HEALTHY"
          ? `enable it: \`aws sesv2 put-account-sending-attributes --sending-enabled --region ${ctx.region}\``
          : "SES paused sending for the account: read the notice in SES console → Reputation metrics, fix the cause, then ask AWS to resume",
      ),
    );
  else if (enforcement === "PROBATION")
    out.push(
      warn(
        SENDING,
        `account under review (PROBATION); ${quotaText(a.SendQuota)}`,
        "SES console → Reputation metrics: bring bounces and complaints down before AWS pauses sending",
      ),
    );
  else if (
    a.SendQuota?.Max24HourSend !== undefined &&
    (a.SendQuota.SentLast24Hours ?? 0) >= 0.9 * a.SendQuota.Max24HourSend
  )
    out.push(
      warn(
        SENDING,
        `near the daily quota: ${quotaText(a.SendQuota)}`,
        "SES console → Account dashboard → request a sending quota increase",
      ),
    );
  else out.push(ok(SENDING, quotaText(a.SendQuota)));

  if (a.ProductionAccessEnabled) out.push(ok(ACCESS, `granted in ${ctx.region}`));
  else out.push(sandbox(ctx.region, a.Details?.ReviewDetails));
  return out;
}

const SANDBOX =
  "the account is in the SES sandbox here: agents can answer only verified addresses, 200 mails a day";
const VERIFY_TESTER =
  "until then verify each test sender: `aws sesv2 create-email-identity --email-identity you@example.com`";

function sandbox(
  region: string,
  review: NonNullable<GetAccountCommandOutput["Details"]>["ReviewDetails"],
): DoctorCheck {
  const caseId = review?.CaseId ? ` (support case ${review.CaseId})` : "";
  switch (review?.Status) {
    case "PENDING":
      return warn(
        ACCESS,
        `${SANDBOX}; the request is under review${caseId}`,
        `wait for AWS's answer; ${VERIFY_TESTER}`,
      );
    case "DENIED":
      return fail(
        ACCESS,
        `${SANDBOX}; the request was denied${caseId}`,
        `answer the support case with the details AWS asks for (use case, bounce and complaint handling), then request again; ${VERIFY_TESTER}`,
      );
    case "FAILED":
      return warn(
        ACCESS,
        `${SANDBOX}; the request did not reach AWS${caseId}`,
        `submit it again (SES console → Account dashboard → Request production access); ${VERIFY_TESTER}`,
      );
    default:
      return warn(
        ACCESS,
        SANDBOX,
        `request production access in ${region}: SES console → Account dashboard → Request production access ` +
          `(or \`aws sesv2 put-account-details --production-access-enabled --mail-type TRANSACTIONAL ...\`); ${VERIFY_TESTER}`,
      );
  }
}
