import { describe, expect, it } from "vitest";
import { envSecretSource } from "../../../shared/secrets/index.ts";
import { noteEnvReference } from "../../../shared/secrets/resolve.ts";

describe("env-var secret references (deprecated, kept one release)", () => {
  it("log one deprecation line per variable, naming `postern secrets set`", () => {
    const lines: string[] = [];
    const seen = new Set<string>();
    const sink = (m: string) => void lines.push(m);
    noteEnvReference("OLD_KEY", sink, seen);
    noteEnvReference("OLD_KEY", sink, seen);
    noteEnvReference("OTHER_KEY", sink, seen);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("OLD_KEY");
    expect(lines[0]).toContain("postern secrets set");
    expect(lines[0]).not.toContain("\n");
  });

  it("an apiKeyEnv / MCP env reference still resolves, and the default sink is Node's deprecation warning", async () => {
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on("warning", listen);
    try {
      const source = envSecretSource({ MIGRATION_TEST_KEY: "from-env" });
      expect(await source.get({ env: "MIGRATION_TEST_KEY" })).toBe("from-env");
      expect(await source.get({ env: "MIGRATION_TEST_KEY" })).toBe("from-env");
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", listen);
    }
    const ours = warnings.filter((w) => String(w.message).includes("MIGRATION_TEST_KEY"));
    expect(ours).toHaveLength(1);
    expect(ours[0]?.name).toBe("DeprecationWarning");
  });
});

describe("the local source", () => {
  it("reads secretsmanager:postern/... from the local store, and nothing else from it", async () => {
    const store = { get: async (n: string) => (n === "postern/models/a" ? "sk-local" : null) };
    const source = envSecretSource({}, store);
    expect(await source.get({ secret: "secretsmanager:postern/models/a" })).toBe("sk-local");
    expect(await source.get({ secret: "secretsmanager:postern/models/b" })).toBeUndefined();
    expect(await source.get({ secret: "ssm:/postern/x" })).toBeUndefined();
    expect(await envSecretSource({}).get({ secret: "secretsmanager:postern/models/a" })).toBeUndefined();
  });
});
