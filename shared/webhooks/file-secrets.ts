import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { EndpointSecrets, SecretStore } from "./secrets.ts";

/**
 * The local stack's secrets file (`.postern/secrets.json`, mode 0600), standing in for Secrets Manager: webhook
 * signing secrets under `webhooks.<endpoint id>`. Other keys of the file are kept as they are.
 */
export function fileSecretStore(path: string): SecretStore {
  const load = (): Record<string, unknown> =>
    existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
  const hooks = (doc: Record<string, unknown>): Record<string, EndpointSecrets> =>
    (doc.webhooks as Record<string, EndpointSecrets> | undefined) ?? {};
  const save = (doc: Record<string, unknown>) => {
    // Write then rename: a reader (the running stack) never sees half a file.
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  };
  return {
    async read(id) {
      return hooks(load())[id] ?? null;
    },
    async write(id, secrets) {
      const doc = load();
      save({ ...doc, webhooks: { ...hooks(doc), [id]: secrets } });
    },
    async remove(id) {
      const doc = load();
      const { [id]: _gone, ...rest } = hooks(doc);
      save({ ...doc, webhooks: rest });
    },
  };
}
