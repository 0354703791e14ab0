import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * `<dir>/console.json`: how `postern console link` reaches the running stack's console. It holds the console's URL,
 * its local operator and the key sign-in links are signed with (console/auth/link-token.ts), so it is written
 * mode 0600, like the dev signing keys beside it, and removed on stop; each start makes a new key, so links from
 * an earlier run sign nobody in.
 */
export interface ConsoleFile {
  readonly pid: number;
  readonly url: string;
  readonly email: string;
  /** base64url */
  readonly linkKey: string;
}

export function writeConsoleFile(path: string, content: ConsoleFile): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function readConsoleFile(path: string): ConsoleFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Partial<ConsoleFile>;
    if (
      typeof v.pid !== "number" ||
      typeof v.url !== "string" ||
      typeof v.email !== "string" ||
      typeof v.linkKey !== "string"
    )
      return undefined;
    return v as ConsoleFile;
  } catch {
    return undefined;
  }
}

/** Remove the file only if this process wrote it. */
export function removeConsoleFile(path: string, pid: number = process.pid): void {
  if (readConsoleFile(path)?.pid === pid) rmSync(path, { force: true });
}
