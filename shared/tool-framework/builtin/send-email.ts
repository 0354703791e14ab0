import * as z from "zod";
import { MAX_SUBJECT_CHARS, parseAddrSpec } from "../../mail/index.ts";
import type { ToolContext } from "../context.ts";
import { defineTool, success, type ToolFailure, toolFailure } from "../tool.ts";

/**
 * send_email: the only way an agent's words leave (G9). The tool checks what it can so the model gets a useful
 * failure at once; the outbound function re-applies every rule (From, threading, reply-all, caps) from stored
 * data, so nothing here is the last line of defence.
 */

const address = z.string().max(320);
const MAX_BODY_CHARS = 100_000;

const input = z
  .object({
    mode: z
      .enum(["reply", "new"])
      .describe(
        "`reply`: answer the message this run is about (reply-all). `new`: start a new conversation.",
      ),
    to: z
      .array(address)
      .max(50)
      .optional()
      .describe("Plain addresses (name@example.com). Required for `new`."),
    cc: z.array(address).max(50).optional(),
    bcc: z.array(address).max(50).optional(),
    subject: z
      .string()
      .max(MAX_SUBJECT_CHARS)
      .optional()
      .describe("Only for `new`; a reply keeps the thread's subject."),
    body: z.string().min(1).max(MAX_BODY_CHARS).describe("Plain text."),
    attachments: z.array(z.string().min(1).max(512)).max(20).optional().describe("Attachment or file ids."),
  })
  .strict();

type Input = z.output<typeof input>;

/** send_email's own failure codes (docs/tools/send_email.md); a refused `deliver` passes its code through. */
export type SendEmailReason =
  | "reply-unavailable"
  | "subject-on-reply"
  | "to-required"
  | "subject-required"
  | "recipient-invalid"
  | "too-many-recipients"
  | "too-many-attachments"
  | "attachment-not-found"
  | "attachment-too-large"
  | "attachments-too-large";

function checkAddresses(inp: Input, max: number): ToolFailure<SendEmailReason> | null {
  const all = [...(inp.to ?? []), ...(inp.cc ?? []), ...(inp.bcc ?? [])];
  for (const a of all) {
    if (!parseAddrSpec(a).ok)
      return toolFailure(
        "recipient-invalid",
        "Every recipient must be a plain address like name@example.com (no display names, quotes or brackets).",
      );
  }
  if (all.length > max) return toolFailure("too-many-recipients", `At most ${max} recipients per message.`);
  return null;
}

async function checkAttachments(
  ctx: ToolContext,
  ids: readonly string[],
): Promise<ToolFailure<SendEmailReason> | null> {
  const limits = ctx.config.attachments;
  if (ids.length > limits.maxAttachments)
    return toolFailure("too-many-attachments", `At most ${limits.maxAttachments} attachments per message.`);
  let total = 0;
  for (const id of ids) {
    // Resolves only in this agent's mailbox, current thread by default (G12); anything else is "not found".
    const found = await ctx.mailbox.attachment(id);
    if (!found)
      return toolFailure("attachment-not-found", `No attachment with id ${JSON.stringify(id)} here.`);
    if (found.meta.size > limits.maxAttachmentBytes)
      return toolFailure(
        "attachment-too-large",
        `Attachment ${id} exceeds ${limits.maxAttachmentBytes} bytes.`,
      );
    total += found.meta.size;
  }
  if (total > limits.maxTotalAttachmentBytes)
    return toolFailure(
      "attachments-too-large",
      `Attachments exceed ${limits.maxTotalAttachmentBytes} bytes in total.`,
    );
  return null;
}

export const sendEmailTool = defineTool({
  name: "send_email",
  displayName: "Send email",
  summary: "Send mail as the agent: reply-all in the current thread, or a new message.",
  description: [
    "Send an email from your own address. This is how you answer: text you write outside this tool is not sent.",
    "mode `reply` answers the message this conversation is about, to everyone on it (the original sender, the",
    "other To and Cc recipients); you may add to/cc/bcc. The subject and threading are set for you.",
    "mode `new` starts a new conversation: give `to` and `subject`. On scheduled tasks only `new` is available.",
    "Addresses must be plain (name@example.com). The sender is always you. Attach files by their ids.",
    "A new message, and any address you add, may only go where the operator's outbound rules allow; otherwise",
    "nothing is sent and the result names the refused addresses.",
    "Returns `queued` once the message is handed to the mail system.",
  ].join(" "),
  input,
  egress: { kind: "structure" },
  sideEffects: {
    kind: "external",
    confirm: false,
    exemptReason:
      "send_email is the agent's voice: answering the sender is the run's purpose, so it cannot wait for an " +
      "approver. Its reach is fixed in code instead: From is always the agent, a reply goes to the thread's own " +
      "participants, any other recipient must be allowed by the operator's outbound rules, recipients are " +
      "capped, and every mail is hop-stamped against loops (G5, G9).",
  },
  async use(ctx, inp) {
    const isScheduled = ctx.trigger.kind !== "message";
    if (inp.mode === "reply" && isScheduled)
      return toolFailure(
        "reply-unavailable",
        "This is a scheduled task with no message to reply to: use mode `new`.",
      );
    if (inp.mode === "reply" && inp.subject !== undefined)
      return toolFailure(
        "subject-on-reply",
        "A reply keeps the thread's subject: leave `subject` out, or use mode `new`.",
      );
    if (inp.mode === "new" && !(inp.to && inp.to.length > 0))
      return toolFailure("to-required", "mode `new` needs at least one `to` address.");
    if (inp.mode === "new" && !inp.subject?.trim())
      return toolFailure("subject-required", "mode `new` needs a `subject`.");
    const bad = checkAddresses(inp, ctx.config.outbound.maxRecipients);
    if (bad) return bad;
    const attachmentIds = inp.attachments ?? [];
    const badAttachment = await checkAttachments(ctx, attachmentIds);
    if (badAttachment) return badAttachment;

    const delivered = await ctx.deliver({
      mode: inp.mode,
      ...(inp.mode === "reply" && ctx.trigger.kind === "message"
        ? { replyTo: { messageId: ctx.trigger.message.id } }
        : {}),
      to: inp.to ?? [],
      cc: inp.cc ?? [],
      bcc: inp.bcc ?? [],
      ...(inp.mode === "new" ? { subject: inp.subject } : {}),
      body: inp.body,
      attachmentIds,
      kind: "agent",
    });
    // The runtime's refusal says what the model can do about it (e.g. which recipients the outbound rules refuse).
    if (!delivered.ok)
      return toolFailure(
        delivered.reason,
        delivered.detail ?? "The message could not be queued for sending.",
      );
    return success({ status: "queued", requestId: delivered.requestId });
  },
});
