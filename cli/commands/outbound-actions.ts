import { listUncertainSends } from "../../shared/store/index.ts";
import { openTableTarget } from "../target.ts";
import { type AdminIo, json, processIo, table } from "./admin-io.ts";

/**
 * `postern outbound unknown`: the sends whose outcome is uncertain — the one window exactly-once cannot close (a
 * crash after SES accepted, before we recorded it; see docs/outbound.md). They are never re-sent automatically:
 * an operator checks the evidence in `outbound/<requestId>.eml` and the SES logs, and decides.
 */
export interface OutboundFlags {
  target?: "local" | "aws";
  resources?: string;
  json?: boolean;
}

export async function outboundUnknown(flags: OutboundFlags, io: AdminIo = processIo): Promise<number> {
  const target = await openTableTarget({
    target: flags.target ?? (flags.resources ? "aws" : "local"),
    ...(flags.resources ? { resourcesFile: flags.resources } : {}),
  });
  try {
    const sends = await listUncertainSends(target.clients.dynamo, target.resources.tables.state, {
      now: new Date(),
    });
    if (flags.json) io.out(json(sends));
    else if (sends.length === 0) io.out("no sends with an uncertain outcome\n");
    else
      io.out(
        table(
          ["REQUEST", "STATE", "SINCE", "REASON"],
          sends.map((s) => [s.requestId, s.state, s.sendingAt ?? s.updatedAt, s.reason ?? ""]),
        ),
      );
    return 0;
  } finally {
    await target.close();
  }
}
