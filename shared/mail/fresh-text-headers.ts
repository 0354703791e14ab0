/**
 * The header block a client writes above a message it pastes unquoted below the reply (G14): Outlook desktop and
 * web (`From:` / `Sent:` / `To:` / `Subject:`, after a `____` rule or not), Outlook localised (`Von:` /
 * `Gesendet:`, `De :` / `Envoyé :`, ...), Windows Mail (`От:` / `Отправлено:`), forwarded-message headers
 * (`From:` / `Date:`). Lines are normalised (see `normaliseLine`).
 */

/** Sender keys: one of them must be in the block, so two ordinary `To:` / `Cc:` lines do not stop the walk. */
const FROM_KEYS = [
  "from",
  "von",
  "de",
  "da",
  "van",
  "fra",
  "från",
  "od",
  "от",
  "lähettäjä",
  "feladó",
  "expéditeur",
  "remitente",
  "mittente",
  "afzender",
  "nadawca",
  "kimden",
  "gönderen",
  "发件人",
  "寄件者",
  "差出人",
  "보낸 사람",
];

const OTHER_KEYS = [
  "sent",
  "date",
  "to",
  "cc",
  "bcc",
  "subject",
  "reply-to",
  "gesendet",
  "datum",
  "an",
  "betreff",
  "kopie",
  "envoyé",
  "envoyé le",
  "à",
  "a",
  "objet",
  "sujet",
  "copie à",
  "enviado",
  "enviado el",
  "enviada em",
  "enviado em",
  "fecha",
  "data",
  "para",
  "asunto",
  "assunto",
  "inviato",
  "inviato il",
  "oggetto",
  "verzonden",
  "aan",
  "onderwerp",
  "sendt",
  "dato",
  "til",
  "emne",
  "skickat",
  "till",
  "ämne",
  "wysłano",
  "wysłane",
  "do",
  "temat",
  "отправлено",
  "дата",
  "кому",
  "тема",
  "копия",
  "lähetetty",
  "päivämäärä",
  "vastaanottaja",
  "aihe",
  "elküldve",
  "dátum",
  "címzett",
  "tárgy",
  "gönderildi",
  "tarih",
  "kime",
  "konu",
  "发送时间",
  "日期",
  "收件人",
  "主题",
  "送信日時",
  "宛先",
  "件名",
  "보낸 날짜",
  "받는 사람",
  "제목",
];

const ALL_KEYS = [...FROM_KEYS, ...OTHER_KEYS];
const FROM_SET = new Set(FROM_KEYS);

/** How many lines below a sender line the next header may sit (Outlook wraps a long From over two lines). */
const BLOCK_LOOKAHEAD = 4;

function isColon(ch: string | undefined): boolean {
  return ch === ":" || ch === "\uff1a";
}

/** The header key that starts `norm` (`From:`, `*From:*`, `De :`, `Envoyé le :`), or null. */
export function headerKey(norm: string): string | null {
  // Every key is short: a line without a colon near its start is not a header (and costs one scan of 48 chars).
  const head = norm.slice(0, 48);
  if (!head.includes(":") && !head.includes("\uff1a")) return null;
  let start = 0;
  while (norm[start] === "*") start++;
  let found: string | null = null;
  for (const key of ALL_KEYS) {
    if (!norm.startsWith(key, start)) continue;
    let at = start + key.length;
    while (norm[at] === " " || norm[at] === "\u00a0" || norm[at] === "*") at++;
    if (isColon(norm[at]) && (found === null || key.length > found.length)) found = key;
  }
  return found;
}

/**
 * A header block starts at `at`: a header line followed within a few lines by another header line with a
 * different key, one of the two being a sender key (`From:` + `Sent:`, `Date:` + `From:`, `Von:` + `An:`).
 */
export function startsHeaderBlock(norms: readonly string[], at: number): boolean {
  const key = headerKey(norms[at] ?? "");
  if (key === null) return false;
  const end = Math.min(norms.length, at + 1 + BLOCK_LOOKAHEAD);
  for (let j = at + 1; j < end; j++) {
    const other = headerKey(norms[j] ?? "");
    if (other !== null && other !== key && (FROM_SET.has(key) || FROM_SET.has(other))) return true;
  }
  return false;
}

/** One alternation of literal keys, each preceded by a space: linear, no nested quantifier. */
const INLINE_KEY = new RegExp(
  `\\s\\*?(?:${ALL_KEYS.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})\\*?\\s?[:\\uff1a]`,
  "u",
);

/** Header lines are short; a longer line that starts like one is not searched, it stops the walk. */
const MAX_INLINE_HEADER_CHARS = 2000;

/**
 * A header block flattened onto one line (`Date: ... From: ... To: ... Subject: ...`), as some webmails and
 * HTML-to-text conversions of Outlook headers produce.
 */
export function isInlineHeaderBlock(norm: string): boolean {
  if (headerKey(norm) === null) return false;
  return norm.length > MAX_INLINE_HEADER_CHARS || INLINE_KEY.test(norm.slice(1));
}
