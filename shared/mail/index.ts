// Front door of shared/mail: MIME parsing, composing, threading, fresh text, confirm codes and the text
// rules. Outside this folder, import this file only (docs/architecture.md).

export {
  type ComposedMail,
  type ComposeFailureReason,
  type ComposeMode,
  composeMime,
  type MailOrigin,
  type SendingIdentity,
} from "./compose.ts";
export { CODE_ALPHABET, CODE_LENGTH, cardCodes, formatCode, readConfirmation } from "./confirm-reading.ts";
export { readReply } from "./confirm-reply.ts";
export { type AttachmentLimits, checkHeaderSize, checkMessageSize, type LimitReason } from "./limits.ts";
export { derivedId, requestMessageId, sentMailboxId } from "./message-id.ts";
export {
  composeNotice,
  isNoticeReason,
  NOTICE_REASONS,
  type NoticeReason,
  noticeReasonFor,
  postmasterOf,
} from "./notice.ts";
export { type ParsedMail, parseMail } from "./parse.ts";
export { printable, printableJson } from "./printable.ts";
export {
  newMailRecipients,
  parseAddrSpec,
  type RecipientReason,
  type Recipients,
  type RecipientsResult,
  replyAllRecipients,
} from "./recipients.ts";
export { routingKey } from "./routing-key.ts";
export {
  CURRENT_MAIL_CHARS,
  cutNote,
  cutText,
  grouped,
  HISTORY_MAIL_CHARS,
  READ_EMAIL,
  READ_EMAIL_CHARS,
  safeCutIndex,
  shownBody,
} from "./text-cut.ts";
export { MAX_SUBJECT_CHARS } from "./threading.ts";
export { normaliseUntrusted, untrustedLine, untrustedLines } from "./unicode.ts";
