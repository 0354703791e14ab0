import type { AttachmentLimits } from "../config/index.ts";
import { type FailWithDetail, fail, type Ok, ok } from "../result.ts";

/**
 * Size and shape limits (G7), checked at the edge before anything is stored for an agent. The structure check
 * runs on a cheap pre-scan of the raw bytes, before the MIME parser allocates anything; the attachment check
 * runs on the parser's output. Both are pure comparisons so each limit is visible (and testable) on its own.
 */

export type { AttachmentLimits };

export type LimitReason =
  | "message-too-large"
  | "headers-too-large"
  | "mime-too-deep"
  | "mime-too-many-parts"
  | "too-many-attachments"
  | "attachment-too-large"
  | "attachments-too-large"
  | "mime-unparseable";

/** A refusal always says which limit and by how much (`detail`), for the operator's log. */
export type LimitFailure = FailWithDetail<LimitReason>;
export type LimitResult = Ok | LimitFailure;

/** What the structural pre-scan measured (see shared/mail/mime-scan.ts). */
export interface MimeShape {
  /** Bytes of the top-level header block, line ends included. */
  readonly headerBytes: number;
  /** Largest header block of any body part or embedded message. */
  readonly maxPartHeaderBytes: number;
  /** Nesting of multipart containers and inline message/rfc822 parts (a flat single-part mail is 0). */
  readonly depth: number;
  /** MIME entities, the top-level one included. */
  readonly parts: number;
}

const OK: LimitResult = ok();

/** Checked first and alone: it needs no scan, so an oversized message costs nothing to refuse. */
export function checkMessageSize(bytes: number, limits: AttachmentLimits): LimitResult {
  if (bytes > limits.maxMessageBytes)
    return fail("message-too-large", `${bytes} bytes > maxMessageBytes ${limits.maxMessageBytes}`);
  return OK;
}

/** The top-level header section, measured before any of it is read as text or parsed. */
export function checkHeaderSize(bytes: number, limits: AttachmentLimits): LimitResult {
  if (bytes > limits.maxHeaderBytes)
    return fail("headers-too-large", `header block > maxHeaderBytes ${limits.maxHeaderBytes}`);
  return OK;
}

export function checkShape(shape: MimeShape, limits: AttachmentLimits): LimitResult {
  if (shape.headerBytes > limits.maxHeaderBytes)
    return fail("headers-too-large", `header block > maxHeaderBytes ${limits.maxHeaderBytes}`);
  if (shape.maxPartHeaderBytes > limits.maxHeaderBytes)
    return fail("headers-too-large", `a part's header block > maxHeaderBytes ${limits.maxHeaderBytes}`);
  if (shape.depth > limits.maxMimeDepth)
    return fail("mime-too-deep", `nesting > maxMimeDepth ${limits.maxMimeDepth}`);
  if (shape.parts > limits.maxMimeParts)
    return fail("mime-too-many-parts", `parts > maxMimeParts ${limits.maxMimeParts}`);
  return OK;
}

export function checkAttachments(sizes: readonly number[], limits: AttachmentLimits): LimitResult {
  if (sizes.length > limits.maxAttachments)
    return fail(
      "too-many-attachments",
      `${sizes.length} attachments > maxAttachments ${limits.maxAttachments}`,
    );
  let total = 0;
  for (const [i, size] of sizes.entries()) {
    if (size > limits.maxAttachmentBytes)
      return fail(
        "attachment-too-large",
        `attachment ${i + 1}: ${size} bytes > maxAttachmentBytes ${limits.maxAttachmentBytes}`,
      );
    total += size;
  }
  if (total > limits.maxTotalAttachmentBytes)
    return fail(
      "attachments-too-large",
      `${total} bytes in attachments > maxTotalAttachmentBytes ${limits.maxTotalAttachmentBytes}`,
    );
  return OK;
}
