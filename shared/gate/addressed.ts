// "Addressed, once" (G2): an accepted mail must name the agent in a To or Cc the proving signature
// covers. The envelope says where SES delivered a copy; only the signed header says whom the signer
// wrote to. Without this check, a mail ceo@victim.example signed and sent to mallory is, replayed
// by mallory to the agent, the CEO's instruction to the agent.

import { routingKey } from "./address.ts";
import type { SignedRecipients } from "./signed-recipients.ts";

/**
 * Whether the signed To or Cc names the agent. Compared on the routing key, so `Helpdesk+billing@Agents...` (a
 * `+tag` alias, any case) names `helpdesk@agents...` as routing does.
 */
export function addresses(signed: SignedRecipients, agentAddress: string): boolean {
  const agent = routingKey(agentAddress);
  return [...signed.to, ...signed.cc].some((a) => routingKey(a) === agent);
}
