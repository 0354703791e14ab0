import { agentItem } from "../../../shared/admin/schema.ts";
import { parseConfig } from "../../../shared/config/load.ts";
import type { Mailbox, ToolContext } from "../../../shared/tool-framework/context.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

/** A ToolContext as the runtime builds one, around the mailbox under test. */
export function toolContext(mailbox: Mailbox, agent = "helpdesk@agents.example.net"): ToolContext {
  return {
    agent: agentItem.parse({ address: agent, name: "Helpdesk", model: "demo" }),
    sender: { address: "alice@example.com", routingKey: "alice@example.com", displayName: "Alice" },
    trigger: {
      kind: "message",
      message: { id: "m1", threadId: "t1", subject: "Hello", headerMessageId: "m1@example.com" },
    },
    config: parseConfig({
      domains: ["agents.example.net"],
      models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
    }),
    logger: recordingLogger(),
    correlationId: "corr-1",
    runId: "run-1",
    round: 1,
    callId: "call-1",
    idempotencyKey: "run-1:1:call-1",
    mailbox,
    deliver: async () => ({ ok: false, reason: "not-in-this-test" }),
  };
}

/** Fails the test if a tool touches the mailbox (web tools must not). */
export const noMailbox: Mailbox = {
  search: () => Promise.reject(new Error("unexpected mailbox search")),
  attachment: () => Promise.reject(new Error("unexpected mailbox read")),
  threadMessage: () => Promise.reject(new Error("unexpected mailbox read")),
  createFile: () => Promise.reject(new Error("unexpected file creation")),
};
