import { SESv2Client } from "@aws-sdk/client-sesv2";
import type { Resources } from "../config/index.ts";
import { type CallObserver, observeCalls } from "./observe.ts";

/**
 * A general SESv2 client for the CLI and the local stack. Kept out of `makeClients`: no Lambda function uses it (the
 * outbound function sends with its own retry-free client, shared/outbound/ses-sender.ts), and the SESv2 client is
 * ~130 KB of every bundle that imports it, parsed on each cold start.
 */
export function makeSesClient(resources: Resources, observe?: CallObserver): SESv2Client {
  const ep = resources.endpoints;
  return observeCalls(
    new SESv2Client({
      region: resources.region,
      ...(ep ? { credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
      ...(ep?.ses ? { endpoint: ep.ses } : {}),
    }),
    observe,
  );
}
