import { isBug } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";

const norm = (host: string) => host.toLowerCase().replace(/\.$/, "");
/** DNS resolver codes for "the name has no MX" (as opposed to a DNS failure). */
const NO_RECORD = new Set(["ENOTFOUND", "ENODATA"]);

/**
 * Each domain's MX points at SES receiving in the stack's region, with the lowest preference. Before the first
 * deploy no MX is fine (it is added after); an MX elsewhere means the domain already receives mail, all of which
 * would move to Postern.
 */
export async function checkMx(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const inbound = `inbound-smtp.${ctx.region}.amazonaws.com`;
  const out: DoctorCheck[] = [];
  for (const [i, domain] of ctx.config.domains.entries()) {
    const check = `mx ${domain}`;
    const add = `add \`${domain} MX 10 ${inbound}\` at your DNS provider (stack output Dns${i}x0)`;
    let records: { exchange: string; priority: number }[];
    try {
      records = [...(await ports.resolveMx(domain))].sort((a, b) => a.priority - b.priority);
    } catch (err) {
      if (isBug(err)) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).name;
      if (!ctx.resources && NO_RECORD.has(code)) out.push(ok(check, "no MX yet: add it after the deploy"));
      else out.push(fail(check, `no MX record (${code})`, add));
      continue;
    }
    const first = records[0];
    const found = records.map((r) => `${r.priority} ${norm(r.exchange)}`).join(", ") || "none";
    if (!records.some((r) => norm(r.exchange) === inbound))
      out.push(
        ctx.resources
          ? fail(
              check,
              `no MX record points at ${inbound} (found: ${found})`,
              `${add}; mail for ${domain} goes to SES only in the region whose receipt rules hold Postern's`,
            )
          : warn(
              check,
              `${domain} already receives mail (MX ${found}): pointing it at SES moves all of that mail to Postern`,
              `give the agents a subdomain of their own (e.g. agents.${domain}) in "domains", or move that mail first`,
            ),
      );
    else if (first && norm(first.exchange) !== inbound)
      out.push(
        warn(
          check,
          `${norm(first.exchange)} (preference ${first.priority}) comes before SES: senders try it first`,
          `remove that MX, or give ${inbound} the lowest preference number`,
        ),
      );
    else out.push(ok(check, inbound));
  }
  return out;
}
