import type { AdminIssue } from "../shared/admin/index.ts";
import { checkAdminWrite, importAdminDocument, ruleKey } from "../shared/admin/index.ts";
import type { Item } from "../shared/ports/index.ts";
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

export type EditResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly issues: readonly AdminIssue[] }
  | { readonly ok: false; readonly notFound: true };

/** The stored key of an item (what DynamoDB is asked for), from the item's own fields. */
export function storedKey(kind: AdminKind, item: Record<string, unknown>): Item {
  const str = (k: string) => (typeof item[k] === "string" ? (item[k] as string) : "");
  switch (kind) {
    case "agents":
      return { address: str("address") };
    case "accessRules":
    case "outboundRules":
      return { agent: str("agent"), rule: ruleKey(str("effect"), str("pattern")) };
    case "toolkits":
    case "responsibilities":
      return { id: str("id") };
    case "approvers":
      return { toolkit: str("toolkit"), address: str("address") };
  }
}

const keyText = (key: Item): string =>
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
  kind: AdminKind,
  input: Record<string, unknown>,
  mode: "create" | "edit",
  principal: Principal,
  deps: ConsoleDeps,
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
  const item = mode === "edit" && before ? { ...withoutKey(kind, before), ...input } : input;
  const doc = { [kind]: [item] };
  const check = await checkAdminWrite(deps.admin, doc, { catalog: deps.catalog });
  if (!check.ok)
    return { ok: false, issues: check.issues.map((i) => ({ ...i, path: fieldOf(kind, i.path) })) };
  const after = (check.doc[kind] as unknown[])[0];
  const entry = await deps.audit.record({
    actor: principal.email,
    action: "put",
    table: kind,
    key: keyText(key),
    before,
    after,
  });
  try {
    const r = await importAdminDocument(deps.admin, doc, { catalog: deps.catalog });
    if (!r.ok) {
      await deps.audit.settle(entry, "failed", r.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
      return { ok: false, issues: r.issues.map((i) => ({ ...i, path: fieldOf(kind, i.path) })) };
    }
  } catch (err) {
    await deps.audit.settle(entry, "failed", String((err as Error)?.message ?? err));
    throw err;
  }
  await deps.audit.settle(entry, "applied");
  return { ok: true };
}

/**
 * Remove one admin item, with the CLI's cascades: an agent takes its access and outbound rules and toolkit
 * attachments with it
 * (re-adding the address later must not revive old allow rules), a toolkit its approvers.
 */
export async function deleteAdminItem(
  kind: AdminKind,
  key: Item,
  principal: Principal,
  deps: ConsoleDeps,
): Promise<EditResult> {
  const before = await deps.admin.rawGet(kind, key);
  if (!before) return { ok: false, notFound: true };
  const entry = await deps.audit.record({
    actor: principal.email,
    action: "delete",
    table: kind,
    key: keyText(key),
    before,
    after: null,
  });
  try {
    const s = (k: string) => String(key[k] ?? "");
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
    }
  } catch (err) {
    await deps.audit.settle(entry, "failed", String((err as Error)?.message ?? err));
    throw err;
  }
  await deps.audit.settle(entry, "applied");
  return { ok: true };
}

/** `accessRules[0].pattern` → `pattern`: the form shows one item. */
function fieldOf(kind: AdminKind, path: string): string {
  const prefix = `${kind}[0]`;
  if (path === prefix) return "(item)";
  return path.startsWith(`${prefix}.`) ? path.slice(prefix.length + 1) : path;
}

/** A stored rule's sort key is derived, not an item field: drop it before re-validating an edit. */
function withoutKey(kind: AdminKind, raw: Item): Item {
  if (kind !== "accessRules" && kind !== "outboundRules") return raw;
  const { rule: _rule, ...rest } = raw;
  return rest;
}
