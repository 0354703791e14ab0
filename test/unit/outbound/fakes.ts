import { agentItem } from "../../../shared/admin/schema.ts";
import { deploymentConfig } from "../../../shared/config/schema.ts";
import type {
  OutboundDeps,
  ReplyTarget,
  SentMessage,
  SesOutcome,
  SesPort,
  SesSendInput,
} from "../../../shared/outbound/ports.ts";
import { sesHeaderMessageId } from "../../../shared/outbound/ses-message-id.ts";
import type { OutboundPayload } from "../../../shared/payloads/outbound.ts";
import { noWebhooks } from "../../../shared/ports/index.ts";
import { recordingFailures } from "../../fakes/failures.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";
import { memoryStateStore } from "../../fakes/send-state.ts";

/** Declarative fakes of the outbound ports that record their calls, like mailauth's DNS zone helper that keeps `calls`. */

export const CONFIG = deploymentConfig.parse({
  domains: ["agents.example.com"],
  models: [{ id: "demo", provider: "scripted", egress: "internal", script: "x.json" }],
  outbound: { configurationSet: "postern-out", maxRecipients: 10 },
});

export const HELPDESK = agentItem.parse({
  address: "helpdesk@agents.example.com",
  name: "Helpdesk",
  model: "demo",
});

export function recordingSes(
  answer: (input: SesSendInput, n: number) => SesOutcome | Promise<SesOutcome> = (_i, n) => ({
    kind: "accepted",
    messageId: `0100-ses-${n}-000000`,
  }),
): SesPort & { calls: SesSendInput[] } {
  const calls: SesSendInput[] = [];
  return {
    calls,
    async send(input) {
      calls.push(input);
      return answer(input, calls.length);
    },
  };
}

/** An outbound rule set that lets mail go anywhere (`allow *`). */
export const ALLOW_ALL = [{ pattern: "*", effect: "allow" }] as const;

export const INBOUND: ReplyTarget = {
  id: "20261129T100000000-aaaa0001",
  threadId: "thread-1",
  direction: "in",
  from: "alice@example.com",
  to: ["helpdesk@agents.example.com", "bob@example.com"],
  cc: ["carol@example.org"],
  subject: "Re: Quarterly numbers",
  headerMessageId: "<CAroot2@mail.gmail.com>",
  references: ["<CAroot@mail.gmail.com>"],
  inReplyTo: "<CAroot@mail.gmail.com>",
  hop: 2,
};

/** The agent's reply to INBOUND (reply-all, no extra recipients), as agent-step queues it. */
export const replyRequest = (over: Partial<OutboundPayload> = {}): OutboundPayload => ({
  requestId: "run-1:1:call-1",
  agent: HELPDESK.address,
  mode: "reply",
  replyTo: { messageId: INBOUND.id },
  to: [],
  cc: [],
  bcc: [],
  body: "Here are the numbers.",
  attachmentIds: [],
  correlationId: "corr-1",
  kind: "agent",
  ...over,
});

/** A new mail from the agent (no thread), as agent-step queues it. */
export const newRequest = (over: Partial<OutboundPayload> = {}): OutboundPayload =>
  replyRequest({
    mode: "new",
    replyTo: undefined,
    to: ["dave@example.net"],
    subject: "Weekly digest",
    ...over,
  });

export interface TestWorld {
  deps: OutboundDeps;
  ses: ReturnType<typeof recordingSes>;
  logger: ReturnType<typeof recordingLogger>;
  blobs: Map<string, Uint8Array>;
  recorded: SentMessage[];
  clock: { now: Date };
  failures: ReturnType<typeof recordingFailures>;
}

export function world(over: Partial<OutboundDeps> = {}, ses = recordingSes()): TestWorld {
  const blobs = new Map<string, Uint8Array>();
  const recorded: SentMessage[] = [];
  const logger = recordingLogger();
  const clock = { now: new Date("2026-11-29T10:00:00Z") };
  const failures = recordingFailures();
  const messages = new Map([[`${HELPDESK.address}|${INBOUND.id}`, INBOUND]]);
  const deps: OutboundDeps = {
    webhooks: noWebhooks,
    state: memoryStateStore(),
    ses,
    mailbox: {
      async getMessage(agent, id) {
        return messages.get(`${agent}|${id}`) ?? null;
      },
      async recordSent(m) {
        recorded.push(m);
      },
    },
    attachments: {
      async load(agent, id) {
        if (agent !== HELPDESK.address || id !== "att-1") return null;
        const bytes = new TextEncoder().encode("a,b\n1,2\n");
        return {
          meta: { id, filename: "numbers.csv", contentType: "text/csv", size: bytes.byteLength },
          bytes,
        };
      },
    },
    blobs: {
      async put(key, bytes) {
        blobs.set(key, bytes);
      },
    },
    agents: {
      async get(address) {
        return address === HELPDESK.address ? HELPDESK : null;
      },
      // These worlds are about composing and sending; the outbound-reach tests set their own rules.
      outboundRules: async () => ALLOW_ALL,
    },
    config: CONFIG,
    clock: () => clock.now,
    logger,
    failures,
    headerMessageId: (id) => sesHeaderMessageId(id, "us-east-1"),
    ...over,
  };
  return { deps, ses, logger, blobs, recorded, clock, failures };
}
