import { startEmulators } from "./cli/local/emulators.ts";
import { makeClients } from "./shared/aws/clients.ts";
import { processOutboundRequest } from "./shared/outbound/process.ts";
import { outboundDeps } from "./shared/outbound/wiring.ts";
import { makeStores } from "./shared/store/stores.ts";
import { CONFIG, HELPDESK, recordingLogger, recordingSes } from "./test/unit/outbound/fakes.ts";

const emu = await startEmulators();
const stores = makeStores(makeClients(emu.resources), emu.resources, recordingLogger());
await stores.admin.putAgent({ address: HELPDESK.address, name: HELPDESK.name, model: "demo" });
await stores.messages.put({ agent: HELPDESK.address, id: "in-1", direction: "in", threadId: "t1", headerMessageId: "a@b", inReplyTo: null, references: [], from: "alice@example.com", to: [HELPDESK.address], cc: [], subject: "Hi", at: "2026-11-29T09:00:00.000Z", bodyKey: "x", hasHtmlOnly: false, attachments: [], hop: 0 });
const timings = new Map<string, number[]>();
function wrap<T extends object>(name: string, o: T): T {
  return new Proxy(o, { get(t, p, r) { const v = Reflect.get(t, p, r); if (typeof v !== "function") return v; return async (...a: unknown[]) => { const t0 = performance.now(); try { return await v.apply(t, a); } finally { const k = `${name}.${String(p)}`; timings.set(k, [...(timings.get(k) ?? []), performance.now() - t0]); } }; } });
}
const base = outboundDeps({ stores, ses: recordingSes(), config: CONFIG, region: "us-east-1", logger: recordingLogger() });
const deps = { ...base, state: wrap("state", base.state), blobs: wrap("blobs", base.blobs), mailbox: wrap("mailbox", base.mailbox), agents: wrap("agents", base.agents) };
const N = Number(process.argv[2] ?? 50);
const total: number[] = [];
for (let i = 0; i < N + 5; i++) {
  const t0 = performance.now();
  const out = await processOutboundRequest({ requestId: `b-${i}`, agent: HELPDESK.address, mode: "reply", replyTo: { messageId: "in-1" }, to: [], cc: [], bcc: [], body: "hello ".repeat(50), attachmentIds: [], correlationId: "c" }, deps);
  if (out.status !== "done") throw new Error(JSON.stringify(out));
  if (i >= 5) total.push(performance.now() - t0);
}
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] ?? 0; };
console.log(`N=${N} median ${med(total).toFixed(1)} ms  p90 ${[...total].sort((a,b)=>a-b)[Math.floor(N*0.9)]?.toFixed(1)} ms min ${Math.min(...total).toFixed(1)}`);
for (const [k, v] of timings) console.log(k.padEnd(24), `n=${v.length}`, `median ${med(v).toFixed(1)} ms`);
await emu.stop();
