// Where a request may be cached. A model call is billed for its whole context every time; providers
// cache a request's prefix so the next call that starts the same way is billed a fraction for it. What comes first
// must therefore be what never changes: the tools and the system prompt (the engine's standing rules, then the
// operator's instructions: the same for every run of an agent), then the conversation, which grows by one turn
// per round. Providers that need markers get them at the places this file names; OpenAI and compatible servers
// cache a long enough prefix on their own.

import type { Message } from "./types.ts";

/**
 * The prefix marks a request carries: always one after the tools and the system prompt (read back by the agent's
 * next run within the provider's cache lifetime, usually five minutes), and one after the conversation's last
 * message once the run has gone past its first round.
 *
 * Why not mark the conversation on round 1: a cache write costs more than plain input (Anthropic and Bedrock
 * bill 1.25x the input price for the five-minute cache), and most runs are one round now (a reply ends the run).
 * A run that reaches a second round is working through tools, so from there each round's conversation is written
 * once and read back by the next.
 */
export function conversationBreakpoint(messages: readonly Message[]): boolean {
  return messages.some((m) => m.role === "assistant");
}
