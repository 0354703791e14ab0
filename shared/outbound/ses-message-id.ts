/**
 * The Message-ID recipients receive for a mail SES sent. SES overwrites any Message-ID we set ("If you provide a
 * Message-ID header, Amazon SES overrides the header with its own value", SES developer guide, header fields)
 * with `<SES message id>@<region host>`: `email.amazonses.com` in us-east-1, `<region>.amazonses.com` elsewhere.
 * Replies from recipients reference this id, so the thread index must hold it, not ours. Kept a port (a
 * function in OutboundDeps) so a region or SES change is one line and tests can pin it.
 */
export function sesHeaderMessageId(sesMessageId: string, region: string): string {
  const host = region === "us-east-1" ? "email.amazonses.com" : `${region}.amazonses.com`;
  return `<${sesMessageId}@${host}>`;
}
