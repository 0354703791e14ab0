import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** A TCP socket in LISTEN state, as the kernel reports it. */
export interface Listener {
  readonly pid: number;
  readonly address: string;
  readonly port: number;
}

const LISTEN = "0A";

/**
 * Every TCP socket in LISTEN state owned by a process of process group `pgid` (a `postern start` spawned detached
 * leads its own group, so children it may start one day count too). Read from /proc, so no tool is needed: a
 * process's open sockets are the `socket:[inode]` links under /proc/<pid>/fd, and /proc/<pid>/net/tcp{,6} list
 * the sockets of its network namespace with their state, local address and inode. Linux only; elsewhere this
 * throws rather than report nothing.
 */
export function listeningSockets(pgid: number): Listener[] {
  const found: Listener[] = [];
  for (const pid of processGroup(pgid)) {
    const inodes = socketInodes(pid);
    for (const file of ["tcp", "tcp6"]) {
      const table = readFileSync(`/proc/${pid}/net/${file}`, "utf8");
      for (const row of parseProcNetTcp(table))
        if (row.state === LISTEN && inodes.has(row.inode))
          found.push({ pid, address: row.address, port: row.port });
    }
  }
  return found;
}

/** Rows of /proc/net/tcp or tcp6: `sl local_address rem_address st ... uid timeout inode ...`. */
export function parseProcNetTcp(
  text: string,
): { address: string; port: number; state: string; inode: string }[] {
  return text
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 10)
    .map((f) => {
      const [addr = "", port = ""] = (f[1] ?? "").split(":");
      return {
        address: decodeAddress(addr),
        port: Number.parseInt(port, 16),
        state: f[3] ?? "",
        inode: f[9] ?? "",
      };
    });
}

/** The kernel prints each 32-bit word of the address in host byte order (little-endian here). */
function decodeAddress(hex: string): string {
  const bytes = (hex.match(/.{8}/g) ?? []).flatMap((word) => (word.match(/../g) ?? []).reverse());
  const octets = bytes.map((b) => Number.parseInt(b, 16));
  if (octets.length === 4) return octets.join(".");
  const groups: string[] = [];
  for (let i = 0; i < octets.length; i += 2)
    groups.push((((octets[i] ?? 0) << 8) | (octets[i + 1] ?? 0)).toString(16));
  return groups.join(":");
}

function processGroup(pgid: number): number[] {
  try {
    readdirSync("/proc/self/fd");
  } catch {
    throw new Error("listing a process's sockets reads /proc (Linux only)");
  }
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        // /proc/<pid>/stat: `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid;
      } catch {
        return false; // exited while we looked
      }
    });
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // closed while we looked
    }
  }
  return inodes;
}
