import { type ConfirmationReading, readConfirmation } from "./confirm-reading.ts";
import { freshHtmlBeside, freshText } from "./fresh-text.ts";

/**
 * What an approver's reply decides (G14), read from every part the approver may have seen. A multipart reply's
 * HTML part is what most clients show, and its text part is what a reader of the text alone would obey: a text
 * part that says `APPROVE <code>` under an HTML part that says "No, do not refund" is two different replies in
 * one mail. A decision stands only when both parts read as the same decision; parts that disagree make the reply
 * ambiguous (nothing applies, the approver gets the notice). A reply whose text part decides nothing is read as
 * before: it applies nothing whatever its HTML says, so the HTML is only converted for a reply that would decide.
 */
export function readReply(mail: {
  readonly text: string | null;
  readonly html: string | null;
}): ConfirmationReading {
  const reading = readConfirmation(freshText(mail).text);
  if (reading.kind !== "approve" && reading.kind !== "cancel") return reading;
  const html = freshHtmlBeside(mail);
  return html === null ? reading : bothParts(reading, readConfirmation(html));
}

/** A text part's decision against its HTML part's reading: the decision when both agree, else ambiguous. */
export function bothParts(
  reading: Extract<ConfirmationReading, { kind: "approve" | "cancel" }>,
  other: ConfirmationReading,
): ConfirmationReading {
  if (other.kind === reading.kind && other.code === reading.code) return reading;
  const codes = new Set([reading.code]);
  if (other.kind === "approve" || other.kind === "cancel") codes.add(other.code);
  else if (other.kind !== "none") for (const c of other.codes) codes.add(c);
  return {
    kind: "ambiguous",
    codes: [...codes],
    approve: reading.kind === "approve" || other.kind === "approve",
    cancel:
      reading.kind === "cancel" || other.kind === "cancel" || (other.kind === "ambiguous" && other.cancel),
  };
}
