import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

/** The reference server's entry point (its `mcp-server-everything` bin), run with this Node. */
export const EVERYTHING_ENTRY = join(
  import.meta.dirname,
  "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

/** How a stdio server item names it: a child process speaking MCP on stdin/stdout. */
export const everythingStdio = { command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"] };

/** A port nobody holds right now: the reference server takes its port from PORT and cannot report a port-0 pick. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface EverythingHttp {
  readonly url: string;
  close(): Promise<void>;
}

/** `mcp-server-everything streamableHttp` on a free port (its README: PORT selects it, `/mcp` is the endpoint). */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_ENTRY, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`reference server did not start: ${seen}`)), 15_000);
    child.stderr?.on("data", (d: Buffer) => {
      seen += d.toString();
      if (seen.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`reference server exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((r) => {
        child.once("exit", () => r());
        child.kill();
      }),
  };
}
