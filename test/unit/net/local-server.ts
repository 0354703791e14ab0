import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalServer {
  readonly port: number;
  readonly host: string;
  /** `http://<host>:<port>` */
  readonly origin: string;
  readonly requests: IncomingMessage[];
  close(): Promise<void>;
}

/** A loopback HTTP server that records every request it receives (so a test can assert "never reached"). */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host = "127.0.0.1",
): Promise<LocalServer> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((res, rej) => {
    server.once("error", rej);
    server.listen(0, host, () => res());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    host,
    origin: `http://${host}:${port}`,
    requests,
    close: () =>
      new Promise<void>((res) => {
        server.closeAllConnections();
        server.close(() => res());
      }),
  };
}

/** A resolver from a zone map, recording every name it was asked for. */
export function fakeResolver(zone: Record<string, readonly string[]>) {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<readonly string[]> => {
    calls.push(host);
    const answer = zone[host];
    if (!answer) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return answer;
  };
  return { resolve, calls };
}
