import type { AdminIssue } from "../shared/admin/index.ts";
import { checkAdminWrite, importAdminDocument, ruleKey } from "../shared/admin/index.ts";
import { PosternError } from "../shared/errors.ts";
import type { Item } from "../shared/ports/index.ts";
import { removeEndpoint } from "../shared/webhooks/index.ts";
import type { Principal } from "./auth/principal.ts";
import type { ConsoleDeps } from "./deps.ts";

/** The admin lists the console edits, named as in the admin document (`postern admin import`). */
export type AdminKind =
  | "agents"
  | "accessRules"
  | "outboundRules"
  | "toolkits"
  | "approvers"
  | "responsibilities";
export const ADMIN_KINDS: readonly AdminKind[] = [
  "agents",
  "accessRules",
  "outboundRules",
  "toolkits",
  "approvers",
  "responsibilities",
];

/**
 * Every table the console writes: the form-edited lists above, and the two whose writes need more than a form
 * (a webhook's signing secret, an MCP server's live listing), written by their own routes through the same check.
 */
export type AuditedKind = AdminKind | "webhooks" | "mcpServers";

export type EditResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly issues: readonly AdminIssue[] }
  | { readonly ok: false; readonly notFound: true };

/** The stored key of an item (what DynamoDB is asked for), from the item's own fields. */
export function storedKey(kind: AuditedKind, item: Record<string, unknown>): Item {
  const str = (k: string) => (typeof item[k] === "string" ? (item[k] as string) : "");
  switch (kind) {
    case "agents":
      return { address: str("address") };
    case "accessRules":
    case "outboundRules":
      return { agent: str("agent"), rule: ruleKey(str("effect"), str("pattern")) };
    case "toolkits":
    case "responsibilities":
    case "webhooks":
    case "mcpServers":
      return { id: str("id") };
    case "approvers":
      return { toolkit: str("toolkit"), address: str("address") };
  }
}

export const keyText = (key: Item): string =>
  Object.entries(key)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(" ");

/**
 * Add or edit one admin item exactly as `postern admin import` would write a one-item document: the same check
 * (schema, unknown fields, lower-case addresses, references, and the deployment: a registered domain, a catalog
 * model, registered tools, approvers a confirm card can reach; shared/admin/document.ts), the same write order. Issues name the field (`pattern: ...`) so the form can say what to fix. Every change is in the
 * audit log, recorded before it is made and settled after.
 */
export async function putAdminItem(
  kind: AuditedKind,
  input: Record<string, unknown>,
  mode: "create" | "edit",
  principal: Principal,
  deps: ConsoleDeps,
  /** The form holds every field of the item (and clears an emptied one): an edit replaces instead of merging. */
  opts: { readonly whole?: boolean } = {},
): Promise<EditResult> {
  const key = storedKey(kind, input);
  const before = Object.values(key).every((v) => v !== "") ? await deps.admin.rawGet(kind, key) : null;
  if (mode === "create" && before)
    return {
      ok: false,
      issues: [{ path: Object.keys(key).at(-1) ?? "key", message: "already exists: edit it instead" }],
    };
  if (mode === "edit" && !before) return { ok: false, notFound: true };
  // An edit keeps the fields the form does not show (unknown fields are kept, as import keeps them).
  const item = mode === "edit" && before && !opts.whole ? { ...withoutKey(kind, before), ...input } : input;
  const doc = { [kind]: [item] };
  const check = await checkAdminWrite(deps.admin, doc, { catalog: deps.catalog });
  if (!check.ok)
    return { ok: false, issues: check.issues.map((i) => ({ ...i, path: fieldOf(kind, i.path) })) };
  const after = (check.doc[kind] as unknown[])[0];
  const r = await audited(
    deps,
    { actor: principal.email, action: "put", table: kind, key: keyText(key), before, after },
    async (): Promise<
      { readonly ok: true } | { readonly ok: false; readonly failed: string; readonly issues: AdminIssue[] }
    > => {
      const imported = await importAdminDocument(deps.admin, doc, { catalog: deps.catalog });
      if (imported.ok) return { ok: true };
      const failed = imported.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
      return { ok: false, failed, issues: imported.issues };
    },
  );
  if (!r.ok) return { ok: false, issues: r.issues.map((i) => ({ ...i, path: fieldOf(kind, i.path) })) };
  return { ok: true };
}

/**
 * A console change, recorded in the audit log before it is made and settled `applied` or `failed` after: a crash in
 * between leaves `recorded`, never a silent change. `work` says `failed` (with why) for an expected refusal; a throw
 * settles `failed` and is rethrown. The entry holds items, never a secret (G16).
 */
export async function audited<R extends { readonly ok: boolean; readonly failed?: string }>(
  deps: Pick<ConsoleDeps, "audit">,
  entry: Parameters<ConsoleDeps["audit"]["record"]>[0],
  work: () => Promise<R>,
): Promise<R> {
  const recorded = await deps.audit.record(entry);
  let r: R;
  try {
    r = await work();
  } catch (err) {
    await deps.audit.settle(recorded, "failed", String((err as Error)?.message ?? err));
    throw err;
  }
  if (r.ok) await deps.audit.settle(recorded, "applied");
  else await deps.audit.settle(recorded, "failed", r.failed ?? "refused");
  return r;
}

/**
 * Remove one admin item, with the CLI's cascades: an agent takes its access and outbound rules and toolkit
 * attachments with it
 * (re-adding the address later must not revive old allow rules), a toolkit its approvers.
 */
export async function deleteAdminItem(
  kind: AuditedKind,
  key: Item,
  principal: Principal,
  deps: ConsoleDeps,
): Promise<EditResult> {
  const before = await deps.admin.rawGet(kind, key);
  if (!before) return { ok: false, notFound: true };
  const s = (k: string) => String(key[k] ?? "");
  await audited(
    deps,
    { actor: principal.email, action: "delete", table: kind, key: keyText(key), before, after: null },
    async () => {
      switch (kind) {
        case "agents":
          await deps.admin.deleteAgent(s("address"), { cascade: true });
          break;
        case "toolkits":
          await deps.admin.deleteToolkit(s("id"), { cascade: true });
          break;
        case "accessRules":
        case "outboundRules":
          await deps.admin.rawDelete(kind, { agent: s("agent"), rule: s("rule") });
          break;
        case "approvers":
          await deps.admin.deleteApprover(s("toolkit"), s("address"));
          break;
        case "responsibilities":
          await deps.admin.deleteResponsibility(s("id"));
          break;
        case "mcpServers":
          await deps.admin.deleteMcpServer(s("id"));
          break;
        case "webhooks":
          // The item, then its signing secrets (shared/webhooks): nothing signs for a removed endpoint.
          if (!deps.webhookSecrets)
            throw new PosternError("misconfigured", "the console has no webhook secret store");
          await removeEndpoint({ repo: deps.admin, secrets: deps.webhookSecrets }, s("id"));
          break;
      }
      return { ok: true as const };
    },
  );
  return { ok: true };
}

/** `accessRules[0].pattern` → `pattern`: the form shows one item. */
function fieldOf(kind: AuditedKind, path: string): string {
  const prefix = `${kind}[0]`;
  if (path === prefix) return "(item)";
  return path.startsWith(`${prefix}.`) ? path.slice(prefix.length + 1) : path;
}

/** A stored rule's sort key is derived, not an item field: drop it before re-validating an edit. */
function withoutKey(kind: AuditedKind, raw: Item): Item {
  if (kind !== "accessRules" && kind !== "outboundRules") return raw;
  const { rule: _rule, ...rest } = raw;
  return rest;
}
