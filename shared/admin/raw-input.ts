import type { AdminIssue } from "./issues.ts";
import { mcpServerItem } from "./mcp-server-item.ts";
import {
  type AdminSnapshot,
  accessRuleItem,
  adminDocument,
  agentItem,
  approverItem,
  outboundRuleItem,
  responsibilityItem,
  toolkitItem,
} from "./schema.ts";
import { webhookItem } from "./webhook-item.ts";

/**
 * What an admin write is refused for before its items are parsed: names the schemas do not know, and
 * addresses written in upper case. The item schemas stay loose because they are also the *read* schemas: a
 * function must not drop an item a newer CLI wrote with a field it does not know. A write is another matter: a
 * key nobody reads (`agentz`, `acceptBCC`) would be stored, exported and obeyed by nothing, the operator believing
 * it set something. So a write may keep a field the stored item already has (written by another version, or
 * around these tools), but never add one.
 */

export type AdminList = keyof AdminSnapshot;

const SCHEMAS = {
  agents: agentItem,
  accessRules: accessRuleItem,
  outboundRules: outboundRuleItem,
  toolkits: toolkitItem,
  responsibilities: responsibilityItem,
  approvers: approverItem,
  webhooks: webhookItem,
  mcpServers: mcpServerItem,
} as const;

const ADMIN_LISTS = Object.keys(adminDocument.shape) as AdminList[];

/**
 * Fields the engine writes on items besides the schema's: the marker on a synthetic fail-closed rule, which
 * `admin export` includes so a re-import makes the lock-out an explicit `deny *` (docs/admin.md).
 */
const ENGINE_FIELDS: Partial<Record<AdminList, readonly string[]>> = {
  accessRules: ["failClosedFor"],
  outboundRules: ["failClosedFor"],
};

const known = (list: AdminList): Set<string> =>
  new Set([...Object.keys(SCHEMAS[list].shape), ...(ENGINE_FIELDS[list] ?? [])]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (o: Obj, k: string): string => (typeof o[k] === "string" ? (o[k] as string) : "");

/** An item's key in its table, from its own fields (a rule's stored key is derived from effect and pattern). */
function itemIdentity(list: AdminList, item: Obj): string {
  switch (list) {
    case "agents":
      return str(item, "address");
    case "accessRules":
    case "outboundRules":
      return `${str(item, "agent")}\n${str(item, "effect")}\n${str(item, "pattern")}`;
    case "toolkits":
    case "responsibilities":
    case "mcpServers":
      return str(item, "id");
    case "approvers":
      return `${str(item, "toolkit")}\n${str(item, "address")}`;
    case "webhooks":
      return str(item, "id");
  }
}

/** Field names the stored item of the same key has: a write may keep them. */
function storedFields(stored: AdminSnapshot, list: AdminList, item: Obj): Set<string> {
  const id = itemIdentity(list, item);
  const match = ((stored[list] ?? []) as readonly Obj[]).find((s) => itemIdentity(list, s) === id);
  return new Set(match ? Object.keys(match) : []);
}

/** Unknown top-level lists, and item fields neither the schema nor the stored item knows. */
export function unknownKeys(input: unknown, stored: AdminSnapshot): AdminIssue[] {
  if (!isObj(input)) return [];
  const issues: AdminIssue[] = [];
  for (const key of Object.keys(input)) {
    if (!(ADMIN_LISTS as string[]).includes(key))
      issues.push({
        path: key,
        message: `unknown list; an admin document has ${ADMIN_LISTS.join(", ")}`,
      });
  }
  for (const list of ADMIN_LISTS) {
    const items = input[list];
    if (!Array.isArray(items)) continue;
    const fields = known(list);
    items.forEach((item, i) => {
      if (!isObj(item)) return;
      const kept = storedFields(stored, list, item);
      for (const key of Object.keys(item))
        if (!fields.has(key) && !kept.has(key))
          issues.push({
            path: `${list}[${i}].${key}`,
            message: `unknown field; known fields: ${[...fields].join(", ")}`,
          });
    });
  }
  return issues;
}

/**
 * The fields of each list that are matched lower-cased (addresses, patterns, host names), where an upper-case
 * letter is refused with the lower-case form named. `x[]` is each entry of a list, `x[].y` a field of each entry.
 */
const LOWER_CASE_FIELDS: Record<AdminList, readonly string[]> = {
  agents: ["address"],
  accessRules: ["agent", "pattern"],
  outboundRules: ["agent", "pattern"],
  toolkits: ["agents[]", "senderRules[].pattern", "egressHosts[]"],
  responsibilities: ["agent"],
  approvers: ["address"],
  webhooks: ["id"],
  mcpServers: [],
};

/**
 * Addresses and patterns are stored lower-case, because routing keys are (G3): `Suzie@x.com` would never match
 * mail. Nothing lower-cases them silently on a write: the write is refused, naming the form that would be stored.
 */
export function upperCaseNames(input: unknown): AdminIssue[] {
  if (!isObj(input)) return [];
  const issues: AdminIssue[] = [];
  const check = (path: string, v: unknown) => {
    if (typeof v === "string" && v !== v.toLowerCase())
      issues.push({ path, message: `must be lower-case: ${JSON.stringify(v.toLowerCase())}` });
  };
  for (const list of ADMIN_LISTS) {
    const items = input[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (!isObj(item)) return;
      for (const spec of LOWER_CASE_FIELDS[list]) {
        const [field = "", sub] = spec.split("[].");
        const path = `${list}[${i}].${field.replace("[]", "")}`;
        const v = item[field.replace("[]", "")];
        if (!spec.includes("[]")) check(path, v);
        else if (Array.isArray(v))
          for (const [j, entry] of v.entries())
            check(
              `${path}[${j}]${sub ? `.${sub}` : ""}`,
              sub ? (isObj(entry) ? entry[sub] : undefined) : entry,
            );
      }
    });
  }
  return issues;
}
