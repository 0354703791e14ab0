import { describe, expect, it } from "vitest";
import { type SecretsStore, secretReader } from "../../../shared/secrets/index.ts";

const store: SecretsStore = {
  get: async (name) => (name === "postern/models/a" ? "from-store" : null),
  set: async () => undefined,
  remove: async () => false,
  list: async () => [],
};

describe("env-var secret references (deprecated, kept one release)", () => {
  it("still resolve, and log one deprecation line per variable naming `postern secrets set`", async () => {
    const lines: { message: string; extra?: Record<string, unknown> }[] = [];
    const read = secretReader(store, {
      env: { OLD_KEY: "from-env" },
      log: { warn: (message, extra) => lines.push({ message, ...(extra ? { extra } : {}) }) },
    });
    expect(await read("env:OLD_KEY")).toBe("from-env");
    expect(await read({ kind: "env", variable: "OLD_KEY" })).toBe("from-env");
    expect(await read("env:UNSET")).toBeNull();
    expect(lines.map((l) => l.message)).toEqual(["secret-env-deprecated", "secret-env-deprecated"]);
    expect(String(lines[0]?.extra?.detail)).toContain("postern secrets set");
    expect(lines[0]?.extra?.variable).toBe("OLD_KEY");
  });

  it("a secretsmanager: reference reads the store and logs nothing", async () => {
    const lines: string[] = [];
    const read = secretReader(store, { env: {}, log: { warn: (m) => lines.push(m) } });
    expect(await read("secretsmanager:postern/models/a")).toBe("from-store");
    expect(await read("not-a-reference")).toBeNull();
    expect(lines).toEqual([]);
  });
});
