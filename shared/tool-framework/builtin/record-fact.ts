import * as z from "zod";
import { defineTool, success, type ToolResult, toolFailure } from "../tool.ts";

/**
 * Records a fact about the conversation, with evidence. The evidence field must be a contiguous quote (>= 8
 * characters) of the mail this run accepted: the dispatcher refuses the call otherwise (G15), so an injected
 * instruction cannot make the agent "remember" something the sender never wrote.
 */
export const recordFactTool = defineTool({
  name: "record_fact",
  description:
    "Remember a fact stated in the current conversation, for later turns in this thread. `evidence` must be an exact quote (at least 8 characters) copied from the message text; paraphrases are refused.",
  summary: "Records a thread fact backed by a verbatim quote of the sender's mail.",
  input: z
    .object({
      fact: z.string().min(1).max(500).describe("The fact, in your words."),
      evidence: z.string().min(1).max(1000).describe("An exact quote from the message that states the fact."),
    })
    .strict(),
  evidenceFields: ["evidence"],
  // The fact and its evidence are the sender's own words (and the model's summary of them): no record content.
  egress: { kind: "structure" },
  sideEffects: { kind: "internal" },
  async use(ctx, input): Promise<ToolResult<"facts-unavailable">> {
    if (!ctx.facts) return toolFailure("facts-unavailable", "facts cannot be recorded in this run");
    const saved = await ctx.facts.record({
      fact: input.fact,
      evidence: input.evidence,
      key: ctx.idempotencyKey,
    });
    return success({ id: saved.id, recorded: true });
  },
});
