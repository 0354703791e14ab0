import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST as a webhook receiver saw it. */
export interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly deliveries: Delivery[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on a free loopback port that keeps every request; it answers 204, or what `status` says for a
 * path (a failing endpoint).
 */
export async function startWebhookReceiver(
  status: (path: string) => number = () => 204,
): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      res.writeHead(status(req.url ?? "")).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deliveries,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The Standard Webhooks headers of a delivery, as `Webhook.verify` takes them. */
export const signedHeaders = (d: Delivery) => ({
  "webhook-id": String(d.headers["webhook-id"]),
  "webhook-timestamp": String(d.headers["webhook-timestamp"]),
  "webhook-signature": String(d.headers["webhook-signature"]),
});
