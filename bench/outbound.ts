/**
 * `npm run bench:outbound`: the send path without SES (claim, compose, evidence, state machine, mailbox and thread
 * records) against the local emulators, next to the cost of one DynamoDB round trip to the same emulator
 * measured in the same run, so the ratio says how many round trips' worth of work a send is.
 */
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { startEmulators } from "../cli/local/emulators.ts";
import { makeClients } from "../shared/aws/clients.ts";
import { parseConfig } from "../shared/config/load.ts";
import { silentLogger } from "../shared/logger.ts";
import { processOutboundRequest } from "../shared/outbound/process.ts";
import { outboundDeps } from "../shared/outbound/wiring.ts";
import { noWebhooks } from "../shared/ports/index.ts";
import { makeStores } from "../shared/store/stores.ts";

const AGENT = "helpdesk@agents.example.net";
const N = 60;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const em = await startEmulators();
const clients = makeClients(em.resources);
const stores = makeStores(clients, em.resources, silentLogger);
const config = parseConfig({
  domains: ["agents.example.net"],
  models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
});
await stores.admin.putAgent({ address: AGENT, name: "Help", model: "demo" });
await stores.blobs.put(`mail/${AGENT}/m1/body.txt`, "Where is my order?");
await stores.messages.put({
  agent: AGENT,
  id: "m1",
  direction: "in",
  threadId: "t1",
  headerMessageId: "q1@example.com",
  inReplyTo: null,
  references: [],
  from: "alice@example.com",
  to: [AGENT],
  cc: [],
  subject: "Order",
  at: new Date().toISOString(),
  bodyKey: `mail/${AGENT}/m1/body.txt`,
  hasHtmlOnly: false,
  attachments: [],
  hop: 0,
});
let sesCalls = 0;
const deps = outboundDeps(
  { stores, config, resources: em.resources, logger: { ...silentLogger, debug() {} }, now: () => new Date() },
  {
    ses: { send: async () => ({ kind: "accepted", messageId: `bench-${++sesCalls}` }) },
    webhooks: noWebhooks,
  },
);

const send: number[] = [];
const trip: number[] = [];
for (let i = 0; i < N; i++) {
  let t = performance.now();
  const out = await processOutboundRequest(
    {
      requestId: `bench-${i}`,
      agent: AGENT,
      mode: "reply",
      replyTo: { messageId: "m1" },
      to: [],
      cc: [],
      bcc: [],
      body: "On it.",
      attachmentIds: [],
      correlationId: "b",
    },
    deps,
  );
  send.push(performance.now() - t);
  if (out.status !== "done") throw new Error(`send ${i}: ${out.status}`);
  t = performance.now();
  await clients.dynamo.send(
    new GetCommand({ TableName: em.resources.tables.agents, Key: { address: AGENT } }),
  );
  trip.push(performance.now() - t);
}
const s = median(send.slice(5));
const r = median(trip.slice(5));
console.log(`send path without SES: median ${s.toFixed(1)} ms over ${N - 5} sends (SES calls ${sesCalls})`);
console.log(`one DynamoDB round trip: median ${r.toFixed(2)} ms`);
console.log(`ratio: ${(s / r).toFixed(1)}x a round trip`);
await em.stop();
