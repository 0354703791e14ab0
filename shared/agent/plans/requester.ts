import { ASKING_TEXT_MAX, bodyText, type MessageRecord, type RequesterProof } from "../../ports/index.ts";
import type { LoadedRun } from "../ports.ts";

/**
 * Who asked for a plan (G14), from the stored message that started its run: what verify proved and recorded, never
 * the model's account of it. Two identical plans from two requesters differ here, so the approver can tell them
 * apart. A field verify did not record stays absent (the card and the console say so).
 */
export function requesterProof(
  message: MessageRecord & { readonly fromName?: string },
  body: string | null,
): RequesterProof {
  const text = body ?? "";
  return {
    address: message.from,
    ...(message.fromName ? { displayName: message.fromName } : {}),
    ...(message.proof ? { proof: message.proof } : {}),
    ...(message.addressing ? { addressing: message.addressing } : {}),
    ...(message.threadedBy ? { threadedBy: message.threadedBy } : {}),
    messageId: message.id,
    threadId: message.threadId,
    subject: message.subject,
    receivedAt: message.at,
    asking: text.slice(0, ASKING_TEXT_MAX),
    ...(text.length > ASKING_TEXT_MAX ? { askingCut: true } : {}),
  };
}

/** The requester of a run's plan: read from its trigger message; null for a scheduled run, or a message gone. */
export function loadRequester(deps: {
  message(agent: string, id: string): Promise<MessageRecord | null>;
  getText(key: string): Promise<string | null>;
}): (run: LoadedRun) => Promise<RequesterProof | null> {
  return async (run) => {
    if (run.trigger.kind !== "message") return null;
    const m = await deps.message(run.agent, run.trigger.message.id);
    if (m?.direction !== "in") return null;
    return requesterProof(m, await bodyText(m, deps.getText));
  };
}
