import { domainToASCII } from "node:url";
import type { AgentItem } from "../admin/index.ts";
import { routingKey } from "./access.ts";

/**
 * Domain-scoped routing (G1). Only the SMTP envelope recipients count: To and Cc are written by the sender,
 * and Bcc'd or forwarded-to agents appear only in the envelope (the SES receipt notification).
 *
 * - `agent`:   the recipient's routing key is an enabled agent's address: it gets its own gate decision.
 * - `unknown`: a registered domain, but no enabled agent there: refused, never processed.
 * - `foreign`: not one of our domains (SES delivered it to us anyway, e.g. a shared receipt rule): ignored.
 *   Returned rather than omitted so the caller can record it; it must never start a run.
 * One route per routing key: `Helpdesk+x@d` and `helpdesk@d` are one decision for one agent.
 */
export type Route =
  | { readonly kind: "agent"; readonly recipient: string; readonly key: string; readonly agent: AgentItem }
  | {
      readonly kind: "unknown";
      readonly recipient: string;
      readonly key: string;
      readonly reason: "unknown-recipient" | "agent-disabled";
    }
  | { readonly kind: "foreign"; readonly recipient: string; readonly key: string };

/** Lower-case A-label form of a domain, so a U-label envelope domain compares equal to the config's A-label. */
function asciiDomain(domain: string): string {
  if (!/[^ -~]/.test(domain)) return domain;
  return domainToASCII(domain);
}

function splitKey(recipient: string): { key: string; domain: string } | null {
  const raw = routingKey(recipient);
  const at = raw.lastIndexOf("@");
  if (at < 0 || at === raw.length - 1) return null;
  const domain = asciiDomain(raw.slice(at + 1));
  if (domain === "") return null;
  return { key: `${raw.slice(0, at)}@${domain}`, domain };
}

export function routeRecipients(
  envelopeRecipients: readonly string[],
  domains: readonly string[],
  agents: readonly AgentItem[],
): Route[] {
  const registered = new Set(domains.map((d) => d.toLowerCase()));
  const byAddress = new Map<string, AgentItem>();
  for (const a of agents) if (!byAddress.has(a.address)) byAddress.set(a.address, a);
  const seen = new Set<string>();
  const routes: Route[] = [];
  for (const recipient of envelopeRecipients) {
    const parsed = splitKey(recipient);
    const key = parsed?.key ?? recipient.trim().toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    if (!parsed || !registered.has(parsed.domain)) {
      routes.push({ kind: "foreign", recipient, key });
      continue;
    }
    const agent = byAddress.get(key);
    if (!agent) routes.push({ kind: "unknown", recipient, key, reason: "unknown-recipient" });
    else if (!agent.enabled) routes.push({ kind: "unknown", recipient, key, reason: "agent-disabled" });
    else routes.push({ kind: "agent", recipient, key, agent });
  }
  return routes;
}
