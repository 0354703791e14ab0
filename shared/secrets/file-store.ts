import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PosternError } from "../errors.ts";
import type { SecretEntry, SecretsStore } from "./store.ts";

interface StoredSecret {
  readonly value: string;
  readonly updatedAt: string;
}

/**
 * The local stack's secrets (`.postern/secrets.json`), standing in for Secrets Manager under the same names:
 * `secrets.<name>` = { value, updatedAt }. The file is created 0600 and a group- or world-readable one is refused
 * (a key readable by every account on a shared machine is a leaked key; ssh refuses a loose private key likewise).
 * Other keys of the file are kept as they are; the pre-1.0 layout's `webhooks.<endpoint id>` is still read.
 */
export function fileSecretsStore(path: string, opts: { readonly now?: () => Date } = {}): SecretsStore {
  const now = opts.now ?? (() => new Date());
  const load = (): Record<string, unknown> => {
    if (!existsSync(path)) return {};
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0)
      throw new PosternError(
        "misconfigured",
        `${path} is readable by other users (mode ${mode.toString(8)}); run: chmod 600 ${path}`,
      );
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(path, "utf8"));
    } catch (err) {
      // A hand-edited file that no longer parses: say which file and what to do, never a line of its content.
      throw new PosternError(
        "misconfigured",
        `${path} is not valid JSON (${(err as Error).name}); fix it, or move it away and set the secrets again`,
      );
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc))
      throw new PosternError(
        "misconfigured",
        `${path} is not a JSON object; move it away and set the secrets again`,
      );
    return doc as Record<string, unknown>;
  };
  const entries = (doc: Record<string, unknown>): Record<string, StoredSecret> =>
    (doc.secrets as Record<string, StoredSecret> | undefined) ?? {};
  const legacyWebhook = (doc: Record<string, unknown>, name: string): string | null => {
    const id = name.startsWith("postern/webhooks/") ? name.slice("postern/webhooks/".length) : undefined;
    const hooks = doc.webhooks as Record<string, unknown> | undefined;
    return id !== undefined && hooks?.[id] !== undefined ? JSON.stringify(hooks[id]) : null;
  };
  const save = (doc: Record<string, unknown>) => {
    // Write then rename: a reader (the running stack) never sees half a file.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  };
  const withoutLegacy = (doc: Record<string, unknown>, name: string): Record<string, unknown> => {
    const hooks = doc.webhooks as Record<string, unknown> | undefined;
    if (hooks === undefined || !name.startsWith("postern/webhooks/")) return doc;
    const { [name.slice("postern/webhooks/".length)]: _gone, ...rest } = hooks;
    return { ...doc, webhooks: rest };
  };
  return {
    async get(name) {
      const doc = load();
      return entries(doc)[name]?.value ?? legacyWebhook(doc, name);
    },
    async set(name, value) {
      const doc = withoutLegacy(load(), name);
      save({ ...doc, secrets: { ...entries(doc), [name]: { value, updatedAt: now().toISOString() } } });
    },
    async remove(name) {
      const doc = load();
      const { [name]: gone, ...rest } = entries(doc);
      const existed = gone !== undefined || legacyWebhook(doc, name) !== null;
      if (existed) save({ ...withoutLegacy(doc, name), secrets: rest });
      return existed;
    },
    async list() {
      const doc = load();
      const out: SecretEntry[] = Object.entries(entries(doc)).map(([name, s]) => ({
        name,
        updatedAt: s.updatedAt,
      }));
      const hooks = (doc.webhooks as Record<string, unknown> | undefined) ?? {};
      for (const id of Object.keys(hooks)) out.push({ name: `postern/webhooks/${id}`, updatedAt: undefined });
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}
