import type { DNSResolver } from "mailauth";
import type { AdminSnapshot } from "../shared/admin/index.ts";
import type { DeploymentConfig } from "../shared/config/index.ts";
import { PosternError } from "../shared/errors.ts";
import {
  type Decision,
  gateMessage,
  type ProofVia,
  renderMessage,
  renderRefusal,
} from "../shared/gate/index.ts";
import type { AddressingKind } from "../shared/ports/index.ts";

/** `postern check`'s answer: one JSON object, stable field names. */
export interface CheckResult {
  readonly verdict: "accept" | "refuse" | "drop";
  readonly reason: string;
  /** What the reason is about, where it says more (`header-duplicated`: the field's name). */
  readonly detail?: string;
  /** The routing key of a proven sender; for refusals the From address reduced to address characters; or null. */
  readonly sender: string | null;
  readonly agent: string | null;
  readonly notify: boolean;
  /**
   * Accepted mail: the header fields the proving signature's h= covers. What a signer leaves out does not count:
   * an unsigned To/Cc addresses no one, unsigned threading fields start a new thread (docs/gate.md).
   */
  readonly signedHeaders?: readonly string[];
  /**
   * Accepted mail: what proved the sender. `{kind: "dkim"}` (with `delegated`: the signer the operator vouches for
   * the From domain) or `{kind: "arc", sealer, instances}`: a chain of trusted sealers (docs/gate.md).
   */
  readonly provenBy?: ProofVia;
  /**
   * Accepted mail: how it was addressed to the agent (docs/gate.md): `signed` (a signed To/Cc names it),
   * `envelope` (named only in an unsigned To/Cc, signed Date fresh: the run writes to its sender only), `bcc`
   * (the agent accepts Bcc). `check` reads no sent mail, so a reply to the agent's own mail that the stack would
   * match (`reply`) shows here as `envelope` or `not-addressed`.
   */
  readonly addressing?: AddressingKind;
  /** With --show: exactly what the model would be given (accept), or the refusal line (refuse/drop). */
  readonly shown?: string;
}

export interface CheckInput {
  readonly raw: Buffer;
  readonly rcpt: string;
  readonly mailFrom: string | null;
  readonly config: DeploymentConfig;
  readonly admin: AdminSnapshot;
  readonly resolver: DNSResolver;
  readonly now: Date;
  readonly show: boolean;
  /** Fixed nonce bytes for reproducible output in tests; production draws fresh ones. */
  readonly randomBytes?: (n: number) => Uint8Array;
}

/** Run the real gate on one message for one envelope recipient, as the verify function would. */
export async function checkMessage(input: CheckInput): Promise<CheckResult> {
  const result = await gateMessage({
    raw: input.raw,
    envelope: { sesMessageId: "postern-check", recipients: [input.rcpt], mailFrom: input.mailFrom },
    config: input.config,
    admin: input.admin,
    resolver: input.resolver,
    now: input.now,
    // No stack's sent mail here (see CheckResult.addressing).
    sentMail: async () => [],
  });
  const decision: Decision = result.decisions[0] ?? {
    verdict: "drop",
    recipient: input.rcpt,
    agent: null,
    reason: "foreign-recipient",
    sender: null,
    proven: false,
    notify: false,
    hop: 0,
  };
  const base = {
    verdict: decision.verdict,
    reason: decision.reason,
    agent: decision.agent?.address ?? null,
  };
  if (decision.verdict === "accept") {
    const mail = result.mail;
    if (!mail) throw new PosternError("invariant-broken", "accepted without a parsed message");
    const shown = renderMessage(
      {
        fromAddress: decision.sender.address,
        displayName: decision.sender.displayName || null,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        attachments: mail.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          size: a.size,
        })),
      },
      input.randomBytes,
    );
    return {
      ...base,
      sender: decision.sender.routingKey,
      notify: false,
      signedHeaders: decision.sender.signedHeaders,
      addressing: decision.addressing.kind,
      ...(result.proof?.ok ? { provenBy: result.proof.via } : {}),
      ...(input.show ? { shown } : {}),
    };
  }
  return {
    ...base,
    ...(decision.detail !== undefined ? { detail: decision.detail } : {}),
    sender: decision.sender,
    notify: decision.notify,
    ...(input.show ? { shown: renderRefusal(decision.reason, decision.sender, decision.verdict) } : {}),
  };
}
