import { GetSendStatisticsCommand } from "@aws-sdk/client-ses";
import { ListSuppressedDestinationsCommand } from "@aws-sdk/client-sesv2";
import { callFailed } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, ok, warn } from "./report.ts";

const DAY = 24 * 60 * 60 * 1000;
/** How far back the suppression list is read: the week since an operator last looked, roughly. */
const SUPPRESSION_DAYS = 7;

/**
 * What SES refused or will silently drop lately, in the stack's region:
 * - `ses rejections`: GetSendStatistics' 15-minute data points of the last two weeks (SES v1 API; SESv2 has no
 *   equivalent). `Rejects` are messages SES refused to send (it found a virus); bounces and complaints are the
 *   reputation the alarms watch.
 * - `ses suppression`: addresses the account suppression list took in the last week (ListSuppressedDestinations).
 *   SES accepts a send to them and never delivers it: an agent's reply to such a sender vanishes.
 */
export async function checkSesRejections(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  return [await statistics(ctx, ports), await suppressed(ctx, ports)];
}

async function statistics(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck> {
  const check = "ses rejections";
  let points: { DeliveryAttempts?: number; Bounces?: number; Complaints?: number; Rejects?: number }[];
  try {
    points = (await ports.sesReceipt.send(new GetSendStatisticsCommand({}))).SendDataPoints ?? [];
  } catch (err) {
    return callFailed(check, "ses:GetSendStatistics", err);
  }
  const sum = (f: (p: (typeof points)[number]) => number | undefined) =>
    points.reduce((a, p) => a + (f(p) ?? 0), 0);
  const attempts = sum((p) => p.DeliveryAttempts);
  const rejects = sum((p) => p.Rejects);
  const facts = `last 14 days in ${ctx.region}: ${attempts} sent, ${sum((p) => p.Bounces)} bounced, ${sum((p) => p.Complaints)} complaint(s), ${rejects} rejected`;
  if (rejects > 0)
    return warn(
      check,
      facts,
      "SES rejects a message it finds a virus in: look for the agent's outbound sends that failed (`postern runs`) and what they attached",
    );
  return ok(check, facts);
}

async function suppressed(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck> {
  const check = "ses suppression";
  const since = new Date(ports.now().getTime() - SUPPRESSION_DAYS * DAY);
  const reasons = new Map<string, number>();
  try {
    let NextToken: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await ports.ses.send(new ListSuppressedDestinationsCommand({ StartDate: since, NextToken }));
      for (const d of r.SuppressedDestinationSummaries ?? [])
        reasons.set(d.Reason ?? "?", (reasons.get(d.Reason ?? "?") ?? 0) + 1);
      NextToken = r.NextToken;
      if (!NextToken) break;
    }
  } catch (err) {
    return callFailed(check, "ses:ListSuppressedDestinations", err);
  }
  const total = [...reasons.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return ok(check, `no address suppressed in the last ${SUPPRESSION_DAYS} days`);
  const by = [...reasons].map(([reason, n]) => `${n} ${reason}`).join(", ");
  return warn(
    check,
    `${total} address(es) suppressed in the last ${SUPPRESSION_DAYS} days (${by}): SES accepts replies to them and never delivers`,
    `list them: \`aws sesv2 list-suppressed-destinations --region ${ctx.region} --start-date ${since.toISOString().slice(0, 10)}\`; ` +
      "once the cause is fixed (a full mailbox, a typo), `aws sesv2 delete-suppressed-destination --email-address ADDRESS`",
  );
}
