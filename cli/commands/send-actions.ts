import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { makeSendingSesClient, sesSender } from "../../shared/aws/index.ts";
import { loadConfigFile } from "../../shared/config/index.ts";
import { outboundDeps, processOutboundRequest } from "../../shared/outbound/index.ts";
import type { OutboundPayload } from "../../shared/payloads/index.ts";
import { noWebhooks } from "../../shared/ports/index.ts";
import { makePlatform } from "../../shared/store/index.ts";
import { ensureDemoFiles } from "../local/demo.ts";
import { openTarget } from "../target.ts";
import { type AdminIo, ioLogger, json, list, processIo } from "./admin-io.ts";

export interface SendArgs {
  from: string;
  to?: string;
  cc?: string;
  subject?: string;
  body: string;
  replyTo?: string;
  config?: string;
  target?: "local" | "aws";
  resources?: string;
}

/**
 * `postern send`: an operator writes as an agent. It goes through the same outbound path (From forced to the
 * agent, threading from the stored message on a reply, exactly-once send), but as operator mail it carries no
 * X-Postern-Recursion hop count and no Auto-Submitted header: a person wrote it (G5).
 */
export async function runSend(a: SendArgs, io: AdminIo = processIo): Promise<number> {
  const config = loadConfigFile(
    a.config ?? (existsSync("postern.config.json") ? "postern.config.json" : ensureDemoFiles(".postern")),
  ).config;
  const target = await openTarget({
    target: a.target ?? (a.resources ? "aws" : "local"),
    ...(a.resources ? { resourcesFile: a.resources } : {}),
  });
  try {
    if (target.kind === "local-offline") {
      io.err(
        "error: the local stack is not running (its SES capture receives the mail); start it with `npm start`\n",
      );
      return 1;
    }
    const logger = ioLogger(io);
    const platform = makePlatform({ resources: target.resources, config, logger, clients: target.clients });
    const deps = outboundDeps(
      { ...platform, logger: { ...logger, debug() {} } },
      // An operator's own send is not an agent's: it emits no signed events.
      { ses: sesSender(makeSendingSesClient(target.resources)), webhooks: noWebhooks },
    );
    const message: OutboundPayload = {
      requestId: `operator-${randomUUID()}`,
      agent: a.from.toLowerCase(),
      mode: a.replyTo ? "reply" : "new",
      to: list(a.to),
      cc: list(a.cc),
      bcc: [],
      body: a.body,
      attachmentIds: [],
      correlationId: "postern-send",
      ...(a.replyTo ? { replyTo: { messageId: a.replyTo } } : { subject: a.subject ?? "" }),
    };
    const outcome = await processOutboundRequest(message, deps, { origin: "operator" });
    io.out(json(outcome));
    return outcome.status === "done" ? 0 : 1;
  } finally {
    await target.close();
  }
}
