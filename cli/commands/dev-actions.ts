import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { acceptedIds } from "../../shared/intake/index.ts";
import { routingKey } from "../../shared/mail/index.ts";
import { CommandFailure, UsageError } from "../errors.ts";
import { ensureDevKey } from "../local/dev-keys.ts";
import { devSend } from "../local/dev-send.ts";
import { messageIdOf, waitForReplies } from "../local/dev-send-reply.ts";
import { liveStackFile } from "../local/stack-file.ts";

/** As cli/local/smtp-intake.ts; repeated so this module does not load smtp-server. */
const DEFAULT_SMTP_PORT = 2525;

const REASONS: Record<string, string> = {
  "invalid-domain": "the domain must be a lower-case domain name (A-label), e.g. sender.example.com",
  "invalid-selector": "the selector must be one DNS label ([a-z0-9-])",
  "invalid-from": "--from must be an address like you@sender.example.com",
};

export interface DevKeysFlags {
  domain: string;
  selector?: string;
  dir: string;
}

export interface DevSendFlags {
  from: string;
  to: string[];
  subject?: string;
  body?: string;
  file?: string;
  port?: number;
  host: string;
  dir: string;
  /** Seconds to wait for the agents' replies in the outbox; 0 returns at once. */
  wait?: number;
}

export function devKeys(o: DevKeysFlags): void {
  const dir = resolve(o.dir);
  const r = ensureDevKey(dir, join(dir, "dns.json"), o.domain, o.selector);
  if (!r.ok) throw new UsageError(`${r.reason}: ${REASONS[r.reason] ?? ""}`);
  console.log(`${r.created ? "created" : "kept existing"} key ${r.key.keyPath}`);
  console.log(
    `zone record ${r.key.dnsName} TXT "${r.key.record.slice(0, 60)}..." in ${join(dir, "dns.json")}`,
  );
}

export async function devSendCommand(o: DevSendFlags): Promise<void> {
  const dir = resolve(o.dir);
  const stack = liveStackFile(join(dir, "stack.json"));
  const port = o.port ?? stack?.smtp.port ?? DEFAULT_SMTP_PORT;
  const r = await devSend({
    dir,
    zoneFile: stack?.zoneFile ?? join(dir, "dns.json"),
    from: o.from,
    to: o.to,
    ...(o.subject !== undefined ? { subject: o.subject } : {}),
    ...(o.body !== undefined ? { body: o.body } : {}),
    ...(o.file !== undefined ? { raw: readMail(o.file) } : {}),
    host: o.host,
    port,
  });
  if (!r.ok) {
    if (!("detail" in r)) throw new UsageError(`${r.reason}: ${REASONS[r.reason] ?? ""}`);
    // A --file that is not a mail is the invocation's fault (2); a stack that is down or says no is not (1).
    if (r.reason === "not-a-mail") throw new UsageError(`--file ${o.file}: ${r.detail}`);
    throw new CommandFailure(r.detail);
  }
  if (r.keyCreated) console.log(`created DKIM key ${r.key.keyPath} (${r.key.dnsName} in the zone file)`);
  console.log(`sent, signed d=${r.key.domain} s=${r.key.selector}`);
  if (r.messageId) console.log(`Message-ID: ${r.messageId}`);
  if (r.sesMessageId) console.log(`stored as inbound/${r.sesMessageId}`);
  console.log(`saved a copy as ${relative(process.cwd(), r.savedAs)}`);
  const messageId = r.messageId ?? messageIdOf(r.raw);
  const waitSeconds = o.wait ?? 20;
  if (!r.sesMessageId || !messageId || !stack || waitSeconds <= 0) return;
  const sesMessageId = r.sesMessageId;
  const agents = o.to.map((to) => routingKey(to));
  // A run exists only for mail the gate accepted: its id is said beside the reply that proves it, and otherwise
  // only as what to look up.
  const replies = await waitForReplies(stack.outboxDir, messageId, agents, { timeoutMs: waitSeconds * 1000 });
  for (const agent of agents) {
    const { runId } = acceptedIds(sesMessageId, agent, "");
    const reply = replies.get(agent);
    if (reply) console.log(`run ${runId}: ${agent} replied, ${relative(process.cwd(), reply)}`);
    else
      console.log(
        `no reply from ${agent} in ${relative(process.cwd(), stack.outboxDir) || "."} after ${waitSeconds} s: ` +
          `if it was accepted its run is ${runId} (npx postern runs show ${runId}); if refused, ` +
          `npx postern check ${sesMessageId} --rcpt ${agent} --show`,
      );
  }
}

function readMail(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`--file ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? err})`);
  }
}
