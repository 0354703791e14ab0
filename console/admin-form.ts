import { ruleKey } from "../shared/admin/index.ts";
import type { AdminKind } from "./admin-edit.ts";

/** A submitted form as Hono's `parseBody` gives it. */
export type Form = Record<string, string | File | (string | File)[]>;

const text = (f: Form, k: string): string => (typeof f[k] === "string" ? (f[k] as string).trim() : "");
const list = (f: Form, k: string): string[] =>
  text(f, k)
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
/** An empty number field means "not set" (the global cap applies); anything else must parse or fail validation. */
const optionalNumber = (f: Form, k: string): number | string | undefined => {
  const v = text(f, k);
  if (v === "") return undefined;
  return /^\d+$/.test(v) ? Number(v) : v;
};
const flag = (f: Form, k: string): boolean => f[k] === "on";

/**
 * Form fields → the admin item the import schema validates (types only; validation is the write check's). Nothing
 * is lower-cased here: an upper-case address or pattern is refused by the check, naming the lower-case form, so the
 * operator sees what will be stored instead of finding it changed. Every field
 * of the item's schema has a field here and an input in its form (console/views/admin.ts): an edit saves the whole
 * item as the form shows it, so a field the form left out would be one an operator cannot see or change
 * (test/console/admin-forms.test.ts derives the list from the schema).
 */
export function itemFromForm(kind: AdminKind, f: Form): Record<string, unknown> {
  const drop = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (kind) {
    case "agents":
      return drop({
        address: text(f, "address"),
        name: text(f, "name"),
        model: text(f, "model"),
        instructions: typeof f.instructions === "string" ? f.instructions : "",
        maxRounds: optionalNumber(f, "maxRounds"),
        runsPerDay: optionalNumber(f, "runsPerDay"),
        tokensPerDay: optionalNumber(f, "tokensPerDay"),
        enabled: flag(f, "enabled"),
        acceptAutoSubmitted: flag(f, "acceptAutoSubmitted"),
        acceptListMail: flag(f, "acceptListMail"),
        acceptBcc: flag(f, "acceptBcc"),
        requireSignedAddressing: flag(f, "requireSignedAddressing"),
        continueAfterReply: flag(f, "continueAfterReply"),
      });
    case "accessRules":
    case "outboundRules":
      return {
        agent: text(f, "agent"),
        pattern: text(f, "pattern"),
        effect: text(f, "effect"),
      };
    case "toolkits":
      return drop({
        id: text(f, "id"),
        name: text(f, "name") || undefined,
        tools: list(f, "tools"),
        agents: list(f, "agents"),
        senderRules: text(f, "senderRules")
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => {
            const [effect = "", pattern = ""] = l.split(/\s+/, 2);
            return { effect, pattern };
          }),
        allowScheduled: flag(f, "allowScheduled"),
        system: flag(f, "system"),
        confirmBySender: flag(f, "confirmBySender"),
        archiveScope: text(f, "archiveScope") || undefined,
        egressHosts: list(f, "egressHosts"),
      });
    case "approvers":
      return { toolkit: text(f, "toolkit"), address: text(f, "address") };
    case "responsibilities":
      return drop({
        id: text(f, "id"),
        agent: text(f, "agent"),
        schedule: text(f, "schedule"),
        prompt: typeof f.prompt === "string" ? f.prompt : "",
        enabled: flag(f, "enabled"),
        archiveScope: text(f, "archiveScope") || undefined,
      });
  }
}

/** The stored key of the item a delete form names. */
export function keyFromForm(kind: AdminKind, f: Form): Record<string, string> {
  switch (kind) {
    case "agents":
      return { address: text(f, "address") };
    case "accessRules":
    case "outboundRules":
      return { agent: text(f, "agent"), rule: ruleKey(text(f, "effect"), text(f, "pattern")) };
    case "toolkits":
    case "responsibilities":
      return { id: text(f, "id") };
    case "approvers":
      return { toolkit: text(f, "toolkit"), address: text(f, "address") };
  }
}

// The same field readers for the forms with their own routes (webhooks, MCP servers).
export { list as formList, optionalNumber as formNumber, text as formText };
