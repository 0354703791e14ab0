import type { LoadedConfig } from "../../config/index.ts";
import { createModel, type ModelProvider } from "../../model/index.ts";
import type { SecretSource } from "../../secrets/index.ts";

/** The deployment's models, each built once per container on first use. */
export function modelCatalog(
  loaded: LoadedConfig,
  secrets: SecretSource,
): (id: string) => ModelProvider | null {
  const providers = new Map<string, ModelProvider>();
  return (id) => {
    const entry = loaded.config.models.find((m) => m.id === id);
    if (!entry) return null;
    let p = providers.get(id);
    if (!p) {
      p = createModel(entry, { baseDir: loaded.baseDir, secrets });
      providers.set(id, p);
    }
    return p;
  };
}
