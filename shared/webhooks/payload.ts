import type { MailText, WebhookEvent } from "../ports/index.ts";

/**
 * The body an endpoint receives (Standard Webhooks' recommended shape: `type`, `timestamp`, `data`), bounded:
 * every string value is capped, and mail text (only for an endpoint that opted in) is cut so the whole body stays
 * under MAX_PAYLOAD_BYTES. A receiver can always buffer it, and a huge mail cannot make a huge request.
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024;
export const MAX_VALUE_CHARS = 500;
export const MAX_SUBJECT_CHARS = 300;

const capped = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);

function boundedData(data: WebhookEvent["data"]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (typeof v === "string") out[k] = capped(v, MAX_VALUE_CHARS);
    else if (Array.isArray(v)) out[k] = v.slice(0, 50).map((s) => capped(String(s), MAX_VALUE_CHARS));
    else out[k] = v;
  }
  return out;
}

/** The JSON body for one endpoint. `includeMailText` is the endpoint's opt-in; absent mail text stays absent. */
export function payloadFor(event: WebhookEvent, includeMailText: boolean): string {
  const base = { type: event.type, timestamp: event.timestamp, data: boundedData(event.data) };
  if (!includeMailText || !event.mail) return JSON.stringify(base);
  const withMail = (mail: MailText) => JSON.stringify({ ...base, data: { ...base.data, mail } });
  const subject = capped(event.mail.subject, MAX_SUBJECT_CHARS);
  const empty = Buffer.byteLength(withMail({ subject, text: "" }));
  // JSON escaping can grow text up to 6x (\u00XX): cut by the escaped size, and shrink until it fits.
  let room = Math.max(0, MAX_PAYLOAD_BYTES - empty - 16);
  let text = event.mail.text.slice(0, room);
  while (Buffer.byteLength(withMail({ subject, text: `${text}…` })) > MAX_PAYLOAD_BYTES && text.length > 0) {
    room = Math.floor(text.length * 0.8);
    text = text.slice(0, room);
  }
  const cut = text.length < event.mail.text.length;
  return withMail({ subject, text: cut ? `${text}…` : text });
}
