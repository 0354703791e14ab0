import { type Fail, failWith } from "../result.ts";
import type { AdminCatalog } from "./catalog.ts";
import { deploymentIssues, looseDeploymentIssues } from "./deployment-check.ts";
import { type AdminIssue, zodIssues } from "./issues.ts";
import { unknownKeys, upperCaseNames } from "./raw-input.ts";
import { type AdminDocument, type AdminSnapshot, adminDocument } from "./schema.ts";

/** What a write is checked against besides its own items: the deployment, and what the tables already hold. */
export interface WriteContext {
  readonly catalog: AdminCatalog;
  /** The admin state as stored (validated reads). */
  readonly stored: AdminSnapshot;
  /**
   * `admin import --replace`: items absent from the document are deleted, so only the document's own items can be
   * referenced.
   */
  readonly replace?: boolean;
}

export type DocumentCheck =
  | { readonly ok: true; readonly doc: AdminDocument }
  | Fail<"invalid-document", { readonly issues: AdminIssue[] }>;

/**
 * The one check of every admin write, whoever makes it: the CLI's commands, `admin import` and the
 * console all write through here, one item or a whole document. Validated in full before anything is written (no
 * transactions: a half-applied import cannot be rolled back). Beyond the item schemas: no unknown key, no
 * upper-case address, no key twice, every reference names something that will exist, and every item can work in
 * this deployment (shared/admin/deployment-check.ts). A dangling reference is refused rather than ignored because
 * a typo in a deny rule's agent would silently leave the intended agent open.
 */
export function checkDocument(input: unknown, ctx: WriteContext): DocumentCheck {
  const raw = [...unknownKeys(input, ctx.stored), ...upperCaseNames(input)];
  // An upper-case name is named once, with its lower-case form, not again by the schema's generic message.
  const said = new Set(raw.map((i) => i.path));
  const parsed = adminDocument.safeParse(input);
  if (!parsed.success) {
    const issues = [...raw, ...zodIssues(parsed.error).filter((i) => !said.has(i.path))];
    // Every problem at once: what the deployment would refuse too, where the schema did not already say it.
    const named = new Set(issues.map((i) => i.path));
    issues.push(...looseDeploymentIssues(input, ctx.catalog).filter((i) => !named.has(i.path)));
    return failWith("invalid-document", { issues });
  }
  const doc = parsed.data;
  const issues: AdminIssue[] = [...raw];
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
  unique(doc.webhooks, "webhooks", (w) => w.id, "id");
  unique(doc.mcpServers, "mcpServers", (m) => m.id, "id");

  const existing = ctx.replace ? { agents: [], toolkits: [] } : ctx.stored;
  const agents = new Set([...existing.agents, ...doc.agents].map((a) => a.address));
  const toolkits = new Set([...existing.toolkits, ...doc.toolkits].map((t) => t.id));
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
  issues.push(...deploymentIssues(doc, ctx.catalog, ctx.stored, ctx.replace === true));
  return issues.length > 0 ? failWith("invalid-document", { issues }) : { ok: true, doc };
}
