/**
 * Line classifiers for fresh-text extraction (G14). Each takes a normalised line (leading whitespace and invisible
 * format characters removed, trailing whitespace removed, lower-cased; see `normaliseLine`) and answers one
 * question. None of them backtracks: they use startsWith/endsWith/includes, or a single anchored character class.
 * When a rule is unsure it says "separator": cutting fresh text only makes the approver confirm again, counting
 * pasted text is the vulnerability.
 */

/** Leading whitespace plus format characters (ZWSP, BOM, bidi marks) a client may put before a marker. */
const LEADING_NOISE = /^[\s\p{Cf}]+/u;

export function normaliseLine(line: string): string {
  return line.replace(LEADING_NOISE, "").trimEnd().toLowerCase();
}

/** `>` quoting (RFC 3676 §4.5, and what every client writes when it quotes plain text). */
export function isQuoted(norm: string): boolean {
  return norm.startsWith(">");
}

/** `-- ` (RFC 3676 §4.3 signature separator); Outlook and many editors strip the trailing space, leaving `--`. */
export function isSignatureDelimiter(norm: string): boolean {
  return norm === "--";
}

const RULE_CHARS = new Set(["_", "-", "=", "\u2014", "\u2013", "\u2500", "\u2501"]);

/**
 * A rule of 10+ rule characters: Outlook desktop/web put 32 `_` above the From/Sent block of the message below,
 * Gmail's and Yahoo's plain text use `-` rules, French webmails (`Message du :`) a `=` rule.
 */
export function isRule(norm: string): boolean {
  if (norm.length < 10) return false;
  for (const ch of norm) if (!RULE_CHARS.has(ch)) return false;
  return true;
}

/**
 * A label framed by rule characters: `-----Original Message-----` (Outlook), `---------- Forwarded message
 * ---------` (Gmail), `-------- Forwarded Message --------` (Thunderbird), `----- Original Message -----`
 * (Yahoo, Zimbra), `---- On <date> <addr> wrote ----` (Zoho), `----- Forwarded by X on <date> -----` (Notes).
 */
export function isFramedBanner(norm: string): boolean {
  if (norm.length < 5) return false;
  const first = norm[0] ?? "";
  const last = norm[norm.length - 1] ?? "";
  if (
    !RULE_CHARS.has(first) ||
    norm[1] !== first ||
    !RULE_CHARS.has(last) ||
    norm[norm.length - 2] !== last
  ) {
    return false;
  }
  return /\p{L}/u.test(norm);
}

/** Client phrases that open a forwarded or original message, with or without framing dashes. */
const FORWARD_PHRASES = [
  "begin forwarded message", // Apple Mail
  "forwarded message", // Gmail, Thunderbird
  "original message", // Outlook, Yahoo, AOL
  "anfang der weitergeleiteten nachricht", // Apple Mail (de)
  "weitergeleitete nachricht", // Gmail, Thunderbird (de)
  "ursprüngliche nachricht", // Outlook (de)
  "début du message réexpédié", // Apple Mail (fr)
  "début du message transféré",
  "message transféré", // Gmail (fr)
  "message d'origine", // Outlook (fr)
  "inicio del mensaje reenviado", // Apple Mail (es)
  "mensaje reenviado", // Gmail (es)
  "mensaje original", // Outlook (es)
  "inizio messaggio inoltrato", // Apple Mail (it)
  "messaggio inoltrato", // Gmail (it)
  "messaggio originale", // Outlook (it)
  "doorgestuurd bericht", // (nl)
  "oorspronkelijk bericht", // Outlook (nl)
  "oprindelig besked", // Outlook (da)
  "videresendt", // (da, nb)
  "opprinnelig melding", // Outlook (nb)
  "ursprungligt meddelande", // Outlook (sv)
  "vidarebefordrat", // (sv)
  "alkuperäinen viesti", // Outlook (fi)
  "välitetty viesti", // (fi)
  "wiadomość oryginalna", // Outlook (pl)
  "przekazana wiadomość", // (pl)
  "исходное сообщение", // Outlook (ru)
  "пересылаемое сообщение", // Gmail (ru)
  "mensagem original", // Outlook (pt)
  "mensagem encaminhada", // Gmail (pt)
  "início da mensagem reencaminhada", // Apple Mail (pt)
];

const BANNER_TRIM = /^[\s\-_=*[(<]+/u;

export function isForwardPhrase(norm: string): boolean {
  const bare = norm.replace(BANNER_TRIM, "");
  return FORWARD_PHRASES.some((p) => bare.startsWith(p));
}

/**
 * Signature lines that mobile and desktop apps append, after which the pasted original usually follows unquoted:
 * iPhone/iPad Mail, Android, Outlook mobile, Mail for Windows 10, Yahoo, AOL, BlackBerry, TypeApp, Spark, Proton.
 */
const APP_SIGNATURE_PREFIXES = [
  "sent from ", // "Sent from my iPhone", "Sent from Mail for Windows", "Sent from Yahoo Mail on Android"
  "sent with ", // Spark, Proton Mail, Sparrow
  "sent via ", // BlackBerry, Superhuman
  "sent using ", // Zoho, OnePlus
  "get outlook for ", // Outlook iOS/Android
  "download outlook for ", // Outlook Android
  "télécharger outlook pour ", // Outlook mobile (fr)
  "obtenir outlook pour ",
  "outlook für ios", // Outlook mobile (de)
  "outlook für android",
  "holen sie sich outlook",
  "gesendet von ", // "Gesendet von Outlook für Android", "Gesendet von meinem iPhone"
  "gesendet mit ",
  "von meinem ", // "Von meinem iPhone gesendet"
  "envoyé de mon ", // iPhone (fr)
  "envoyé depuis ",
  "envoyé à partir de ",
  "enviado desde ", // iPhone (es)
  "enviado de mi ",
  "enviado do meu ", // iPhone (pt)
  "inviato da ", // iPhone (it)
  "verzonden vanaf ", // iPhone (nl)
  "verstuurd vanaf ",
  "verzonden met ",
  "skickat från ", // iPhone (sv)
  "sendt fra ", // iPhone (da, nb)
  "lähetetty ", // iPhone (fi)
  "wysłane z ", // iPhone (pl)
  "отправлено с ", // iPhone (ru)
  "odesláno z ", // iPhone (cs)
  "iphoneから送信", // iPhone (ja)
  "发自我的", // iPhone (zh)
  "從我的 iphone 傳送", // iPhone (zh-Hant)
];

export function isAppSignature(norm: string): boolean {
  return APP_SIGNATURE_PREFIXES.some((p) => norm.startsWith(p));
}
