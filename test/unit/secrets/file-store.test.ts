import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PosternError } from "../../../shared/errors.ts";
import { fileSecretsStore } from "../../../shared/secrets/index.ts";

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "postern-secrets-"));
  path = join(dir, "secrets.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const at = () => new Date("2026-01-02T03:04:05.000Z");

describe("fileSecretsStore", () => {
  it("refuses a file that is not a JSON object with one line naming it, never its content", async () => {
    for (const text of ['{"secrets": {"postern/x": {"value": "sk-live-123"', "[1]"]) {
      writeFileSync(path, text, { mode: 0o600 });
      const read = fileSecretsStore(path).get("postern/x");
      await expect(read).rejects.toBeInstanceOf(PosternError);
      await expect(read).rejects.toMatchObject({ code: "misconfigured" });
      await expect(read).rejects.toThrow(path);
      await expect(read).rejects.not.toThrow("sk-live");
    }
  });

  it("creates the file 0600 and reads, lists (names and times, no values) and removes", async () => {
    const store = fileSecretsStore(path, { now: at });
    expect(await store.get("postern/models/a")).toBeNull();
    await store.set("postern/models/a", "sk-1");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await store.get("postern/models/a")).toBe("sk-1");
    const listed = await store.list();
    expect(listed).toEqual([{ name: "postern/models/a", updatedAt: "2026-01-02T03:04:05.000Z" }]);
    expect(JSON.stringify(listed)).not.toContain("sk-1");
    expect(await store.remove("postern/models/a")).toBe(true);
    expect(await store.remove("postern/models/a")).toBe(false);
    expect(await store.get("postern/models/a")).toBeNull();
  });

  it.each([0o640, 0o604, 0o644])("refuses a file of mode %o, naming the chmod to run", async (mode) => {
    const store = fileSecretsStore(path);
    await store.set("postern/models/a", "sk-1");
    chmodSync(path, mode);
    const err = await store.get("postern/models/a").catch((e: unknown) => e);
    expect(PosternError.isInstance(err) && err.code).toBe("misconfigured");
    expect(String((err as Error).message)).toContain(`chmod 600 ${path}`);
    expect(String((err as Error).message)).not.toContain("\n");
  });

  it("keeps other keys of the file, and still reads the pre-1.0 webhooks.<id> layout", async () => {
    writeFileSync(path, JSON.stringify({ other: 1, webhooks: { crm: { current: "whsec_a" } } }), {
      mode: 0o600,
    });
    const store = fileSecretsStore(path);
    expect(JSON.parse((await store.get("postern/webhooks/crm")) as string)).toEqual({ current: "whsec_a" });
    expect((await store.list()).map((e) => e.name)).toEqual(["postern/webhooks/crm"]);
    await store.set("postern/webhooks/crm", '{"current":"whsec_b"}');
    const doc = JSON.parse(readFileSync(path, "utf8"));
    expect(doc.other).toBe(1);
    expect(doc.webhooks).toEqual({});
    expect(await store.get("postern/webhooks/crm")).toBe('{"current":"whsec_b"}');
  });
});
