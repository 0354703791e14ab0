import { isBug } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";

/** DNS resolver codes for "no such record" (as opposed to a DNS failure). */
const NO_RECORD = new Set(["ENOTFOUND", "ENODATA"]);

type Found =
  | { readonly kind: "record"; readonly at: string; readonly tags: ReadonlyMap<string, string> }
  | { readonly kind: "several"; readonly at: string }
  | { readonly kind: "none" }
  | { readonly kind: "error"; readonly at: string; readonly code: string };

/** `v=DMARC1; p=reject; sp=none` → its tags (RFC 7489 §6.4), lower-cased names. */
function tags(record: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of record.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return out;
}

/**
 * The DMARC record that governs `domain`: its own `_dmarc` record, else the nearest parent's (RFC 7489 §6.6.3 looks
 * up the organizational domain; without a public-suffix list we walk up the tree, as DMARCbis does, stopping at two
 * labels). More than one DMARC record at a name means receivers apply none (§6.6.3 step 5).
 */
async function findDmarc(domain: string, resolveTxt: DoctorPorts["resolveTxt"]): Promise<Found> {
  const labels = domain.split(".");
  for (let i = 0; i <= labels.length - 2; i++) {
    const at = labels.slice(i).join(".");
    let records: string[][];
    try {
      records = await resolveTxt(`_dmarc.${at}`);
    } catch (err) {
      if (isBug(err)) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).name;
      if (NO_RECORD.has(code)) continue;
      return { kind: "error", at, code };
    }
    const dmarc = records.map((chunks) => chunks.join("")).filter((r) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(r));
    if (dmarc.length > 1) return { kind: "several", at };
    const [record] = dmarc;
    if (record !== undefined) return { kind: "record", at, tags: tags(record) };
  }
  return { kind: "none" };
}

/**
 * Each domain's mail is covered by a DMARC policy that tells receivers to quarantine or reject mail forging it. The
 * agents' replies carry the domain's DKIM signature and an aligned MAIL FROM, so they pass; without a policy anyone
 * can send mail "from" an agent that a recipient's provider delivers. A policy found at the parent applies its `sp=`
 * (else `p=`) to the agents' subdomain.
 */
export async function checkDmarc(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  for (const [i, domain] of ctx.config.domains.entries()) {
    const check = `dmarc ${domain}`;
    const own = `add \`_dmarc.${domain} TXT "v=DMARC1; p=quarantine"\` (stack output Dns${i}x6)`;
    const found = await findDmarc(domain, ports.resolveTxt);
    if (found.kind === "error") {
      out.push(
        warn(
          check,
          `looking up _dmarc.${found.at} failed (${found.code})`,
          "run the doctor again; if it persists, check the domain's DNS servers",
        ),
      );
      continue;
    }
    if (found.kind === "none") {
      out.push(
        warn(
          check,
          `no DMARC record for ${domain} or its parents: receivers deliver mail that forges an agent`,
          `${own}, or a policy on the parent domain`,
        ),
      );
      continue;
    }
    if (found.kind === "several") {
      out.push(
        fail(
          check,
          `_dmarc.${found.at} has more than one DMARC record: receivers apply none of them`,
          `keep one record at _dmarc.${found.at}`,
        ),
      );
      continue;
    }
    const inherited = found.at !== domain;
    const policy = (
      (inherited ? found.tags.get("sp") : undefined) ??
      found.tags.get("p") ??
      ""
    ).toLowerCase();
    const where = inherited
      ? `_dmarc.${found.at} (the parent's${found.tags.has("sp") ? " sp=" : " p="})`
      : `_dmarc.${domain}`;
    if (policy === "quarantine" || policy === "reject") out.push(ok(check, `${where}: ${policy}`));
    else
      out.push(
        warn(
          check,
          `${where} says ${policy ? `"${policy}"` : "no policy"}: receivers deliver mail that forges an agent`,
          inherited
            ? `${own}; or set sp=quarantine at _dmarc.${found.at}`
            : `change it to "v=DMARC1; p=quarantine" (agent mail passes: SES signs it with the domain's DKIM key)`,
        ),
      );
  }
  return out;
}
