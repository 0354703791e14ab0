import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { Resources } from "../../shared/config/index.ts";

/**
 * `<dir>/stack.json`: how the CLI reaches a running local stack. Written once everything listens, removed on
 * stop. `pid` lets a reader tell a live stack from one that crashed without cleaning up.
 */
export interface StackFile {
  readonly pid: number;
  readonly startedAt: string;
  readonly resources: Resources;
  readonly smtp: { readonly host: string; readonly port: number };
  readonly outboxDir: string;
  readonly zoneFile: string;
  /**
   * The deployment config the stack runs with (the demo config without postern.config.json): admin writes from the
   * CLI are checked against its domains and models. Absent in files written before it was recorded.
   */
  readonly configFile?: string;
  /** Started with POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1: webhook endpoints on this machine are reached (the doctor says). */
  readonly webhookLoopback?: boolean;
}

export function writeStackFile(path: string, content: StackFile): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`);
  renameSync(tmp, path);
}

export function readStackFile(path: string): StackFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as StackFile;
  } catch {
    return undefined;
  }
}

/** A stack file whose process is still alive (signal 0 probes without signalling). */
export function liveStackFile(path: string): StackFile | undefined {
  const file = readStackFile(path);
  if (!file || typeof file.pid !== "number") return undefined;
  try {
    process.kill(file.pid, 0);
    return file;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else; still alive.
    return (err as NodeJS.ErrnoException).code === "EPERM" ? file : undefined;
  }
}

/** Remove the file only if it is ours: a second stack's file must survive the first one's shutdown. */
export function removeStackFile(path: string, pid: number = process.pid): void {
  if (readStackFile(path)?.pid === pid) rmSync(path, { force: true });
}
