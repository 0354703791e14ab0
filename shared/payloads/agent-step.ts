import * as z from "zod";
import { type PayloadResult, parsePayload } from "./parse-payload.ts";

/**
 * The agent-step queue's messages, declared once: producers (verify, the scheduled-run starter, the step loop, the
 * local timer) send these types, and the agent-step function parses with these schemas, so a producer cannot send
 * what the consumer refuses.
 */

/** Bytes of tool results a step message may carry (JSON); more are saved in the transcript instead. */
export const MAX_CARRIED_RESULT_BYTES = 32 * 1024;

/** A tool result as the model reads it (shared/model/types.ts ToolResult), without media: those are never carried. */
const carriedResultSchema = z.object({
  toolCallId: z.string().max(1000),
  isError: z.boolean(),
  content: z.discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("json"), value: z.unknown() }),
  ]),
});

/**
 * One model round of a run. `results`, when present, are the previous round's tool results, carried here instead
 * of written to the transcript (one transcript write per round); the round appends them before it calls
 * the model. Only the step loop sends them, for its own next round.
 */
export const stepPayloadSchema = z.object({
  runId: z.string().min(1).max(200),
  round: z.number().int().min(1).max(1000),
  /*
   * What the sender knew about the run, so the round can skip a read. Each is only ever `true`, and a
   * round heeds them only on its first claim: a delivery that takes a round over cannot know what the crashed one
   * did, and reads. `fresh`: round 1 of a run just created (no transcript saved yet). `noPlan`: no operation has
   * been proposed in the run (G14: the plan store need not be read when it ends). `channelOpen`: the run's
   * channels were open when this message was sent (G18: the closed-channel marker need not be read).
   */
  fresh: z.literal(true).optional(),
  noPlan: z.literal(true).optional(),
  channelOpen: z.literal(true).optional(),
  results: z
    .array(carriedResultSchema)
    .max(100)
    .refine(
      (r) => Buffer.byteLength(JSON.stringify(r)) <= MAX_CARRIED_RESULT_BYTES,
      "carried results too large",
    )
    .optional(),
});

/** EventBridge Scheduler (and the local timer) send one tick a minute: start the responsibilities due. */
export const tickPayloadSchema = z.object({ tick: z.iso.datetime({ offset: true }) });

/** What the approver's own words held, when they held no single decision (G14). */
export const UNCLEAR = ["nothing", "conflicting", "several-codes"] as const;

/**
 * An approver's reply, forwarded by verify (G14): a decision read from the approver's fresh text (`approve`,
 * `cancel`), or `unclear` (a reply to a card without exactly one decision), which applies nothing and tells the
 * approver what to send.
 */
export const confirmPayloadSchema = z.object({
  code: z.string().min(1).max(40),
  action: z.enum(["approve", "cancel", "unclear"]),
  understood: z.enum(UNCLEAR).optional(),
  /** The reply's SES message id and hop count: a notice about it is sent once, stamped hop + 1. */
  replyId: z.string().min(1).max(200),
  hop: z.number().int().min(0).max(1_000_000),
  /** Routing key of the DKIM-proven sender of the reply. */
  sender: z.string().min(3).max(320),
  /** The agent the reply was addressed to. */
  agent: z.string().min(3).max(320),
  /** The reply carried X-Postern-Recursion: it came from an agent, which can never confirm. */
  agentOriginated: z.boolean(),
});

export const confirmEnvelopeSchema = z.object({ confirm: confirmPayloadSchema });

/** Tried in this order: a body that is a valid tick is a tick, whatever else it carries. */
export const agentStepPayloadSchema = z.union([tickPayloadSchema, confirmEnvelopeSchema, stepPayloadSchema]);

export type StepPayload = Readonly<z.infer<typeof stepPayloadSchema>>;

/**
 * Round 1 of a run just created, by whichever module created it (intake for a mail, the scheduler for a
 * responsibility): nothing saved, proposed or closed yet. What the step loop makes of these fields, and what it
 * passes on to the next round, is shared/agent/loop/step-knowledge.ts's alone.
 */
export const firstStepOf = (runId: string): StepPayload => ({
  runId,
  round: 1,
  fresh: true,
  noPlan: true,
  channelOpen: true,
});
export type TickPayload = Readonly<z.infer<typeof tickPayloadSchema>>;
export type ConfirmPayload = Readonly<z.infer<typeof confirmPayloadSchema>>;
export type Unclear = (typeof UNCLEAR)[number];
export type ConfirmEnvelope = { readonly confirm: ConfirmPayload };
export type AgentStepPayload = TickPayload | ConfirmEnvelope | StepPayload;

/** A queue body → the message it holds (a tick, a confirmation or a step), or why not. */
export function parseAgentStepPayload(body: string): PayloadResult<AgentStepPayload> {
  return parsePayload(body, agentStepPayloadSchema);
}

export type CarriedResult = z.infer<typeof carriedResultSchema>;
