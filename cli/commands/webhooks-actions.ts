import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { AdminCatalog } from "../../shared/admin/index.ts";
import { SqsQueue } from "../../shared/queue/index.ts";
import type { AdminRepo } from "../../shared/store/index.ts";
import {
  addEndpoint,
  type BreakerState,
  type DeliveryEntry,
  type DeliveryLog,
  type EndpointReachOptions,
  endpointItem,
  MAX_OVERLAP_HOURS,
  removeEndpoint,
  rotateEndpoint,
  type SecretStore,
  testDelivery,
  WEBHOOK_EVENT_TYPES,
  type WebhookItem,
  type WebhooksPayload,
} from "../../shared/webhooks/index.ts";
import { CommandFailure } from "../errors.ts";
import { type AdminIo, json, list, table } from "./admin-io.ts";
import { secretOutRefusal } from "./secret-out.ts";

/**
 * `postern webhooks ...` as plain functions over their ports (webhooks.ts wires commander and the target). A signing
 * secret is never printed (G16): `add` and `rotate` write it to the file `--secret-out` names, mode 0600, for the
 * operator to hand to the receiver.
 */
export interface WebhookPorts {
  readonly repo: AdminRepo;
  readonly secrets: SecretStore;
  readonly log: Pick<DeliveryLog, "recent">;
  breaker(id: string): Promise<BreakerState>;
  /** Hands a message to the events queue; null when the target has none (a stack from before events). */
  readonly enqueue: ((m: WebhooksPayload) => Promise<void>) | null;
  /** Which addresses the target's worker delivers to: the stack's loopback switch, or AWS's public only. */
  readonly reach: EndpointReachOptions;
}

export interface AddArgs {
  readonly id: string;
  readonly url: string;
  readonly events: string;
  readonly secretOut: string;
  readonly includeMailText?: boolean;
  readonly description?: string;
  readonly disabled?: boolean;
}

const FLAGS: Record<string, string> = {
  id: "<id>",
  url: "--url",
  events: "--events",
  description: "--description",
};

function writeSecret(path: string, secret: string): void {
  const refused = secretOutRefusal(path);
  if (refused) throw new CommandFailure(refused);
  // `wx`: never overwrite a file (it may be the previous secret the receiver still needs during the overlap).
  try {
    // `.postern/` may not exist yet where the stack never ran (a deploy from a fresh checkout).
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: "wx" });
  } catch (err) {
    throw new CommandFailure(`--secret-out ${path}: ${(err as Error).message}`);
  }
}

export async function webhooksAdd(
  p: WebhookPorts,
  io: AdminIo,
  a: AddArgs,
  catalog: AdminCatalog,
): Promise<void> {
  const item = endpointItem(
    { ...a, events: a.events.trim() === "all" ? ["all"] : list(a.events), enabled: a.disabled !== true },
    WEBHOOK_EVENT_TYPES,
  );
  // The core (shared/webhooks/endpoints.ts) makes the one admin write check, then stores the secret before the item.
  const r = await addEndpoint(p, item, {
    catalog,
    reach: p.reach,
    beforeStore: (secret) => writeSecret(a.secretOut, secret),
  });
  if (!r.ok) {
    if (r.reason === "invalid")
      throw new CommandFailure(
        `webhook not written:\n${r.issues
          .map((i) => {
            const field = i.path.replace(/^webhooks\[0\]\.?/, "").replace(/[[.].*$/, "");
            return `  ${FLAGS[field] ?? (field || i.path)}: ${i.message}`;
          })
          .join("\n")}`,
      );
    if (r.reason === "exists") throw new CommandFailure(`webhook ${a.id} already exists (remove it first)`);
    throw new CommandFailure(`webhook ${a.id} not written (${r.reason})`);
  }
  io.out(`added webhook ${a.id}: ${(item.events as string[]).join(", ")}\n`);
  io.err(
    `signing secret written to ${a.secretOut} (mode 0600); give it to the receiver, then delete the file\n`,
  );
}

export async function webhooksList(p: WebhookPorts, io: AdminIo, asJson: boolean): Promise<void> {
  const hooks = await p.repo.listWebhooks();
  if (asJson) return io.out(json(hooks));
  io.out(
    table(
      ["ID", "URL", "EVENTS", "MAIL TEXT", "ENABLED"],
      hooks.map((h) => [h.id, h.url, h.events.join(","), String(h.includeMailText), String(h.enabled)]),
    ),
  );
}

export async function webhooksRemove(p: WebhookPorts, io: AdminIo, id: string): Promise<void> {
  if (!(await removeEndpoint(p, id))) throw new CommandFailure(`no webhook ${id}`);
  io.out(`removed webhook ${id} and its secrets; deliveries still queued for it are dropped\n`);
}

export async function webhooksRotate(
  p: WebhookPorts,
  io: AdminIo,
  id: string,
  secretOut: string,
  overlapHours: number,
  now: Date = new Date(),
): Promise<void> {
  if (!(overlapHours >= 0 && overlapHours <= MAX_OVERLAP_HOURS))
    throw new CommandFailure(`--overlap-hours must be between 0 and ${MAX_OVERLAP_HOURS}`);
  const r = await rotateEndpoint(p, id, {
    overlapHours,
    now,
    beforeStore: (secret) => writeSecret(secretOut, secret),
  });
  if (!r.ok) throw new CommandFailure(`no webhook ${id}`);
  io.out(
    r.previousUntil
      ? `rotated webhook ${id}: deliveries carry both signatures until ${r.previousUntil}\n`
      : `webhook ${id} had no secret: it has one now, and its deliveries are signed with it\n`,
  );
  io.err(`new signing secret written to ${secretOut} (mode 0600)\n`);
}

function deliveriesTable(entries: readonly DeliveryEntry[]): string {
  if (entries.length === 0) return "no deliveries recorded\n";
  return table(
    ["AT", "EVENT", "TYPE", "ATTEMPT", "OUTCOME", "STATUS", "REASON", "MS"],
    entries.map((e) => [
      e.at,
      e.eventId,
      e.type,
      String(e.attempt),
      e.outcome,
      e.status === undefined ? "" : String(e.status),
      e.reason ?? "",
      e.ms === undefined ? "" : String(e.ms),
    ]),
  );
}

export async function webhooksShow(
  p: WebhookPorts,
  io: AdminIo,
  id: string,
  opts: { readonly limit: number; readonly json: boolean; readonly now?: Date },
): Promise<WebhookItem> {
  const hook = await p.repo.getWebhook(id);
  if (!hook) throw new CommandFailure(`no webhook ${id}`);
  const [breaker, recent] = await Promise.all([p.breaker(id), p.log.recent(id, opts.limit)]);
  if (opts.json) {
    io.out(json({ webhook: hook, breaker, deliveries: recent }));
    return hook;
  }
  const open = breaker.openUntil && Date.parse(breaker.openUntil) > (opts.now ?? new Date()).getTime();
  io.out(
    `${hook.id}  ${hook.url}\n  events: ${hook.events.join(", ")}\n  mail text: ${hook.includeMailText}  enabled: ${hook.enabled}\n` +
      `  breaker: ${open ? `open until ${breaker.openUntil}` : "closed"} (${breaker.failures} consecutive failures)\n\n`,
  );
  io.out(deliveriesTable(recent));
  return hook;
}

/**
 * Send a `webhook.test` event to one endpoint through the real queue and worker, wait for its outcome, then show the
 * endpoint's recent deliveries. Exit 1 when it was not delivered in time.
 */
export async function webhooksTest(
  p: WebhookPorts,
  io: AdminIo,
  id: string,
  opts: {
    readonly waitSeconds: number;
    readonly limit: number;
    readonly sleep?: (ms: number) => Promise<void>;
  },
): Promise<boolean> {
  const hook = await p.repo.getWebhook(id);
  if (!hook) throw new CommandFailure(`no webhook ${id}`);
  if (!p.enqueue) throw new CommandFailure("this target has no events queue (deploy or restart the stack)");
  const message = testDelivery(id, "postern webhooks test", new Date());
  const { event } = message;
  await p.enqueue(message);
  io.err(`sent ${event.id}; waiting up to ${opts.waitSeconds} s for the worker\n`);
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  let outcome: DeliveryEntry | undefined;
  for (let waited = 0; waited <= opts.waitSeconds * 1000; waited += 250) {
    outcome = (await p.log.recent(id, 20)).find((e) => e.eventId === event.id);
    if (outcome) break;
    await sleep(250);
  }
  io.out(
    outcome
      ? `test ${event.id}: ${outcome.outcome}${outcome.status ? ` (HTTP ${outcome.status})` : ""}${outcome.reason ? ` ${outcome.reason}` : ""}\n\n`
      : `test ${event.id}: no outcome within ${opts.waitSeconds} s (is the stack's worker running?)\n\n`,
  );
  io.out(deliveriesTable(await p.log.recent(id, opts.limit)));
  return outcome?.outcome === "delivered";
}

/** The SQS send for `enqueue`, over the target's client. */
export function sqsEnqueue(
  sqs: Pick<SQSClient, "send">,
  queueUrl: string | undefined,
): WebhookPorts["enqueue"] {
  if (!queueUrl) return null;
  const queue = new SqsQueue({ sqs });
  return async (m) => void (await queue.send(queueUrl, m));
}
