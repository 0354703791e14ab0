import { sesHeaderMessageId } from "../../shared/outbound/index.ts";

/**
 * What SES does to a raw message it sends: it writes its own Message-ID (`<SES message id>@<region host>`) and Date,
 * replacing any the sender set ("Amazon SES header fields", SES developer guide; the SendRawEmail reference says
 * the same). The local SES capture does the same, so a recipient's reply to an agent's mail names the id the
 * thread index holds, as it will in AWS. Every other byte is kept.
 */
export function rewriteAsSes(raw: Buffer, sesMessageId: string, region: string, now: Date): Buffer {
  const text = raw.toString("latin1");
  const crlf = text.indexOf("\r\n\r\n");
  const lf = text.indexOf("\n\n");
  const end = crlf >= 0 && (lf < 0 || crlf <= lf) ? crlf + 2 : lf >= 0 ? lf + 1 : text.length;
  const eol = crlf >= 0 && (lf < 0 || crlf <= lf) ? "\r\n" : "\n";
  const header = text.slice(0, end);
  const kept: string[] = [];
  let dropping = false;
  for (const line of header.split(/(?<=\n)/)) {
    const continued = line.startsWith(" ") || line.startsWith("\t");
    if (!continued) dropping = /^(message-id|date)[ \t]*:/i.test(line);
    if (!dropping) kept.push(line);
  }
  const added = `Message-ID: ${sesHeaderMessageId(sesMessageId, region)}${eol}Date: ${rfc5322Date(now)}${eol}`;
  return Buffer.from(added + kept.join("") + text.slice(end), "latin1");
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const two = (n: number) => String(n).padStart(2, "0");

/** RFC 5322 §3.3 date-time in UTC, as SES writes it (`Mon, 30 Nov 2026 20:00:00 +0000`). */
export function rfc5322Date(d: Date): string {
  return `${DAYS[d.getUTCDay()]}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}
