// Threading reads only what the proving signature covers (G2).
//
// Message-ID, In-Reply-To and References decide which thread a mail joins, and so which earlier mail its run
// may read. A relay or a replayer can add any header the signature does not name in h=; with no field twice
// (gate/single-instance.ts), a field h= names is the very instance that was signed. A field h= does not name
// is the word of whoever handled the mail last: it is ignored, the mail starts a new thread (or keeps its own
// on a redelivery), and the caller logs which fields were ignored.

import type { ParsedMail } from "../mail/index.ts";

export interface SignedThreading {
  /** The mail's Message-ID if signed, else null (the caller derives one from the SES message id). */
  readonly messageId: string | null;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  /** Threading fields the mail carries that the signature does not cover: read as absent. */
  readonly unsigned: readonly ("message-id" | "in-reply-to" | "references")[];
}

export function signedThreading(
  mail: Pick<ParsedMail, "messageId" | "inReplyTo" | "references">,
  signedHeaders: readonly string[],
): SignedThreading {
  const signed = new Set(signedHeaders);
  const unsigned: ("message-id" | "in-reply-to" | "references")[] = [];
  const read = <T>(
    name: "message-id" | "in-reply-to" | "references",
    value: T,
    present: boolean,
    absent: T,
  ) => {
    if (signed.has(name)) return value;
    if (present) unsigned.push(name);
    return absent;
  };
  return {
    messageId: read("message-id", mail.messageId, mail.messageId !== null, null),
    inReplyTo: read("in-reply-to", mail.inReplyTo, mail.inReplyTo !== null, null),
    references: read("references", mail.references, mail.references.length > 0, []),
    unsigned,
  };
}
