import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { consoleLink } from "../../cli/commands/console.ts";
import { writeConsoleFile } from "../../cli/local/console-file.ts";
import { readLinkToken } from "../../console/auth/link-token.ts";

/** `postern console link`: a fresh link from the running stack's key, without restarting anything. */
function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

function stackDir(): { dir: string; key: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), "postern-console-link-"));
  const key = Buffer.alloc(32, 3);
  // This process stands in for the running stack: its pid is alive.
  writeFileSync(join(dir, "stack.json"), JSON.stringify({ pid: process.pid }));
  writeConsoleFile(join(dir, "console.json"), {
    pid: process.pid,
    // a console the operator moved off the default port (test sources never name the defaults)
    url: "http://127.0.0.1:14570",
    email: "operator@postern.test",
    linkKey: key.toString("base64url"),
  });
  return { dir, key };
}

describe("postern console link", () => {
  it("prints a link the running console accepts, for its operator, valid 10 minutes", () => {
    const { dir, key } = stackDir();
    expect(statSync(join(dir, "console.json")).mode & 0o777).toBe(0o600);
    const c = capture();
    const now = new Date("2030-01-01T00:00:00Z");
    expect(consoleLink({ dir }, c.io, now)).toBe(0);
    const link = new URL(c.out.join("").trim());
    expect(link.origin).toBe("http://127.0.0.1:14570");
    expect(link.pathname).toBe("/auth/local");
    const read = readLinkToken(key, link.searchParams.get("token") ?? "", now.getTime());
    expect(read).toMatchObject({ ok: true, claims: { email: "operator@postern.test", groups: ["admins"] } });
    expect(readLinkToken(key, link.searchParams.get("token") ?? "", now.getTime() + 601_000)).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("signs in someone else, as a viewer, when asked", () => {
    const { dir, key } = stackDir();
    const c = capture();
    expect(consoleLink({ dir, email: "Boss@Approvers.Example", viewer: true }, c.io)).toBe(0);
    const token = new URL(c.out.join("").trim()).searchParams.get("token") ?? "";
    expect(readLinkToken(key, token, Date.now())).toMatchObject({
      ok: true,
      claims: { email: "boss@approvers.example", groups: ["viewers"] },
    });
  });

  it("says how to start a console when none runs, and exits 1", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-console-link-"));
    const c = capture();
    expect(consoleLink({ dir }, c.io)).toBe(1);
    expect(c.out).toEqual([]);
    expect(c.err.join("")).toMatch(/no local console is running .*npm start/);
  });
});
