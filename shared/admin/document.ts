import { type AdminIssue, zodIssues } from "./issues.ts";
import { type AdminDocument, adminDocument } from "./schema.ts";

/** What already exists outside the document and may be referenced by it (an import without `replace`). */
export interface ExistingRefs {
  readonly agents: ReadonlySet<string>;
  readonly toolkits: ReadonlySet<string>;
}

export type DocumentCheck =
  | { readonly ok: true; readonly doc: AdminDocument }
  | { readonly ok: false; readonly issues: AdminIssue[] };

/**
 * Validate a whole admin document before anything is written (no transactions: a half-applied import cannot be
 * rolled back). Beyond the item schemas: no key twice, and every reference names something that will exist.
 * A dangling reference is refused rather than ignored because a typo in a deny rule's agent would silently
 * leave the intended agent open.
 */
export function checkDocument(input: unknown, existing: ExistingRefs): DocumentCheck {
  const parsed = adminDocument.safeParse(input);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error) };
  const doc = parsed.data;
  const issues: AdminIssue[] = [];
  const unique = <T>(list: readonly T[], name: string, key: (t: T) => string, field: string) => {
    const seen = new Map<string, number>();
    list.forEach((item, i) => {
      const k = key(item);
      const first = seen.get(k);
      if (first !== undefined)
        issues.push({ path: `${name}[${i}].${field}`, message: `duplicate of ${name}[${first}]` });
      else seen.set(k, i);
    });
  };
  unique(doc.agents, "agents", (a) => a.address, "address");
  unique(doc.accessRules, "accessRules", (r) => `${r.agent}#${r.effect}#${r.pattern}`, "pattern");
  unique(doc.outboundRules, "outboundRules", (r) => `${r.agent}#${r.effect}#${r.pattern}`, "pattern");
  unique(doc.toolkits, "toolkits", (t) => t.id, "id");
  unique(doc.responsibilities, "responsibilities", (r) => r.id, "id");
  unique(doc.approvers, "approvers", (a) => `${a.toolkit}#${a.address}`, "address");

  const agents = new Set([...existing.agents, ...doc.agents.map((a) => a.address)]);
  const toolkits = new Set([...existing.toolkits, ...doc.toolkits.map((t) => t.id)]);
  const noAgent = (path: string, agent: string) =>
    issues.push({ path, message: `no agent ${agent} (add it under "agents")` });
  doc.accessRules.forEach((r, i) => {
    if (!agents.has(r.agent)) noAgent(`accessRules[${i}].agent`, r.agent);
  });
  doc.outboundRules.forEach((r, i) => {
    if (!agents.has(r.agent)) noAgent(`outboundRules[${i}].agent`, r.agent);
  });
  doc.toolkits.forEach((t, i) => {
    t.agents.forEach((a, j) => {
      if (!agents.has(a)) noAgent(`toolkits[${i}].agents[${j}]`, a);
    });
  });
  doc.responsibilities.forEach((r, i) => {
    if (!agents.has(r.agent)) noAgent(`responsibilities[${i}].agent`, r.agent);
  });
  doc.approvers.forEach((a, i) => {
    if (!toolkits.has(a.toolkit))
      issues.push({
        path: `approvers[${i}].toolkit`,
        message: `no toolkit ${a.toolkit} (add it under "toolkits")`,
      });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, doc };
}
