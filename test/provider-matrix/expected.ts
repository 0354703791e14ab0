// What each provider's mail comes to, per flow: the one place the matrix's expectations live.
// test/unit/gate/provider-matrix.test.ts holds the observed matrix to it, and `npm run docs:gate` writes it into
// docs/gate.md. A cell that changes here changes what operators are told; say why in the commit.

import type { Cell, Flow, Reach } from "./flows.ts";

type Row = Record<Flow, Cell>;

const NA: Cell = { verdict: "n/a" };
const refuse = (reason: string): Cell => ({ verdict: "refuse", reason });
/** Accepted; `joined` says whether it joined the thread of the agent's mail it answers. */
const accept = (
  addressing: "signed" | "reply" | "envelope",
  threadedBy: "signed" | "own-message-id" | "none",
  joined: boolean,
  ...reaches: Reach[]
): Cell => ({ verdict: "accept", addressing, threadedBy, joined, reaches });

// The author's signature covers the Subject and the body a list rewrites; only ARC could carry its proof past
// the list (not evaluated yet), so the subscribed agent refuses it.
const LIST = refuse("dkim-body-modified");
// Signed for someone else: the signer's own word that the agent was not addressed (or, To unsigned, the agent
// is named nowhere).
const AUTO_FORWARD = refuse("not-addressed");

/** Signs To, Cc and In-Reply-To: every flow proven, replies threaded by the signature, reply-all reaches the Cc. */
const signsAll: Row = {
  fresh: accept("signed", "none", false, "sender"),
  reply: accept("signed", "signed", true, "sender"),
  "reply-all": accept("signed", "none", false, "sender", "colleague"),
  forward: accept("signed", "none", false, "sender"),
  list: LIST,
  "auto-forward": AUTO_FORWARD,
};

/** Microsoft signs no To, Cc or threading: addressed by the envelope, replies matched to the agent's own Message-ID. */
const microsoft: Row = {
  fresh: accept("envelope", "none", false, "sender"),
  reply: accept("reply", "own-message-id", true, "sender"),
  "reply-all": accept("envelope", "none", false, "sender"),
  forward: accept("envelope", "none", false, "sender"),
  list: LIST,
  "auto-forward": AUTO_FORWARD,
};

/** Only the list flow applies to a list manager's row. */
const listOnly: Row = {
  fresh: NA,
  reply: NA,
  "reply-all": NA,
  forward: NA,
  list: LIST,
  "auto-forward": NA,
};

export const EXPECTED: Record<string, Row> = {
  "exchange-online": microsoft,
  // d= is the tenant's onmicrosoft.com name, not the From's domain (RFC 7489 alignment, strict): no flow is proven
  "exchange-online-onmicrosoft": {
    fresh: refuse("dkim-misaligned"),
    reply: refuse("dkim-misaligned"),
    "reply-all": refuse("dkim-misaligned"),
    forward: refuse("dkim-misaligned"),
    list: refuse("dkim-misaligned"),
    "auto-forward": refuse("dkim-misaligned"),
  },
  "outlook-com": microsoft,
  gmail: signsAll,
  "google-workspace": signsAll,
  yahoo: signsAll,
  aol: signsAll,
  // To signed, so addressed `signed`; Cc and In-Reply-To unsigned: the colleague is not written to, and the reply
  // joins the thread it answers by the agent's own Message-ID
  icloud: {
    ...signsAll,
    reply: accept("signed", "own-message-id", true, "sender"),
    "reply-all": accept("signed", "none", false, "sender"),
  },
  fastmail: signsAll,
  proton: signsAll,
  zoho: signsAll,
  "amazon-ses": signsAll,
  sendgrid: signsAll,
  mailgun: signsAll,
  postmark: signsAll,
  "google-groups": listOnly,
  mailman3: listOnly,
};
