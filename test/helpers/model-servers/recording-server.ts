import { createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { createServer as createH2cServer, type Http2ServerRequest, type Http2Session } from "node:http2";
import type { AddressInfo } from "node:net";

/** One request as the server saw it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What both node:http and node:http2 compat responses offer (their `writeHead` overloads do not unify). */
interface MinimalResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/** A canned reply: JSON (object body), raw text (string body), or no reply at all (`hang`). */
export type Reply =
  | { readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: unknown }
  | { readonly hang: true };

export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that records every request and answers from a list of replies in order (the last one
 * repeats), or from a function of the request. Speaks whatever wire format the replies are written in.
 */
export async function startRecordingServer(
  replies: readonly Reply[] | ((req: RecordedRequest, index: number) => Reply),
  options: { readonly http2?: boolean } = {},
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const handle = (req: IncomingMessage | Http2ServerRequest, res: MinimalResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const index = requests.length;
      requests.push(recorded);
      const reply =
        typeof replies === "function"
          ? replies(recorded, index)
          : replies[Math.min(index, replies.length - 1)];
      if (reply === undefined || "hang" in reply) return;
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
      const type = typeof reply.body === "string" ? "text/plain" : "application/json";
      res.writeHead(reply.status ?? 200, { "content-type": type, ...reply.headers });
      res.end(text);
    });
  };
  if (options.http2) return listenH2c(handle, requests);
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Cleartext HTTP/2 (h2c with prior knowledge): the Bedrock runtime client's default handler speaks HTTP/2 even to
 * an `http://` endpoint, so its real transport is exercised rather than swapped for an HTTP/1.1 handler.
 */
async function listenH2c(
  handle: (req: Http2ServerRequest, res: MinimalResponse) => void,
  requests: RecordedRequest[],
): Promise<RecordingServer> {
  const server = createH2cServer(handle);
  const sessions = new Set<Http2Session>();
  server.on("session", (s: Http2Session) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A sleep that records the delays it was asked for and returns at once. */
export function recordingSleep(): {
  readonly delays: number[];
  readonly sleep: (ms: number) => Promise<void>;
} {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}
