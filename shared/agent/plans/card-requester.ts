// Who asked, on the confirm card (G14). Two identical refunds, one asked for by the order's owner and one by a
// stranger, must not look alike to the approver: the card names the proven requester, how the proof went, the thread,
// and the asking text.
//
// The asking text and the subject are the sender's words, so they get the card's two rules and one more. Each line is
// printed after an engine prefix (`  | `) and escaped like model text (cardText), so nothing sender-written starts
// a line or moves to a new one. And a line is printed only when the confirmation reader itself says it changes
// nothing: put under the approver's own `APPROVE <code>`, the reply still reads as exactly that approval, and it holds
// no code as a card shows one. A requester who writes "cancel K7Q2 M9XT 4Z" or "code: ..." cannot stop an
// approval quoted with the card, nor point the approver's unclear reply at another plan: such a line is withheld.

import { cardCodes, readConfirmation } from "../../mail/index.ts";
import { proofLine, type RequesterProof } from "../../ports/index.ts";
import { cardText } from "./card-text.ts";

/** At most this many lines of the asking text on the card (the plan page and the thread show it all). */
export const CARD_ASKING_LINES = 30;

const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * Whether the confirmation reader finds nothing in `line`: alone it reads as no decision (so even without the fence
 * it confirms nothing), quoted under the approver's own `APPROVE <code>` the reply still reads as exactly that
 * approval (no CANCEL, no other code, nothing unreadable), and it names no code as a card shows one.
 */
export function inertUnderApproval(line: string, code: string): boolean {
  const under = readConfirmation(`APPROVE ${code}\n${line}`);
  return (
    readConfirmation(line).kind === "none" &&
    under.kind === "approve" &&
    under.code === code &&
    cardCodes([line]).length === 0
  );
}

/** One sender-written line as the card prints it after its engine prefix, or a note that it was withheld. */
export function senderLine(text: string, code: string): string {
  const shown = cardText(text);
  return inertUnderApproval(shown, code)
    ? shown
    : "[withheld: this line of the requester's reads like a confirmation or a code]";
}

/** The card's "Asked by" block: engine labels, sender-written values fenced line by line. */
export function requesterBlock(
  requester: RequesterProof | null,
  asked: { readonly scheduled: string | null },
  code: string,
): string[] {
  if (!requester)
    return asked.scheduled !== null
      ? [`Asked by: no one. A scheduled run started it (responsibility ${cardText(asked.scheduled)}).`, ""]
      : ["Asked by: not recorded for this plan.", ""];
  const lines = requester.asking.split(LINE_BREAK);
  const shown = lines.slice(0, CARD_ASKING_LINES);
  return [
    // The address passed the strict From parser, but a local part is the sender's to choose: checked like the rest.
    `Asked by: ${senderLine(requester.address, code)}`,
    ...(requester.displayName
      ? [`   display name (their words): ${senderLine(requester.displayName, code)}`]
      : []),
    `   proven:  ${proofLine(requester)}`,
    `   thread:  ${cardText(requester.threadId)}, message received ${requester.receivedAt}`,
    `   subject (their words): ${senderLine(requester.subject, code)}`,
    "   what they wrote (their words, not Postern's or the agent's):",
    ...shown.map((l) => `  | ${senderLine(l, code)}`),
    ...(lines.length > shown.length || requester.askingCut
      ? ["  | [cut here: the whole mail is in the thread]"]
      : []),
    "",
  ];
}
