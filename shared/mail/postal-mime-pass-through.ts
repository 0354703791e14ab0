import PostalMime from "postal-mime";
import { PosternError } from "../errors.ts";

/**
 * postal-mime 4.0.0 keeps a 7bit / 8bit / binary part (no Content-Transfer-Encoding, or one that is neither base64
 * nor quoted-printable: RFC 2045 §6.2, the body is its own encoding) as one array entry per line plus one per line
 * break, then joins them with `new Blob(entries)`. Node's Blob costs ~1.4 KB per entry, so a 9.8 MB plain-text or
 * HTML mail (117,000 lines) peaked at +335 MB while its base64 twin, whose decoder keeps 100 KB chunks, stayed near
 * +55 MB (measured). That is a memory lever for any sender: the message size limit does not bound it,
 * the line count does.
 *
 * This decoder yields the same bytes (every line as postal-mime hands it over, each followed by LF) in 64 KB
 * segments copied once into the result. postal-mime has no option for its decoders, so the one method that picks
 * a part's decoder, `MimeNode.prototype.setupContentDecoder`, is wrapped: base64 and quoted-printable keep
 * postal-mime's own decoders, exactly as it chooses them, and everything else gets this one. It applies to every
 * parser in the process, nested message/rfc822 parsers included. test/unit/mail/postal-mime-pass-through.test.ts
 * holds the output to postal-mime's own decoder on the MIME corpus and on generated parts.
 */

const SEGMENT_BYTES = 64 * 1024;
const LF = new Uint8Array([0x0a]);

export class CompactPassThroughDecoder {
  #segments: Uint8Array[] = [];
  #current = new Uint8Array(SEGMENT_BYTES);
  #used = 0;
  #total = 0;

  #write(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      if (this.#used === this.#current.length) {
        this.#segments.push(this.#current);
        this.#current = new Uint8Array(SEGMENT_BYTES);
        this.#used = 0;
      }
      const n = Math.min(bytes.length - from, this.#current.length - this.#used);
      this.#current.set(bytes.subarray(from, from + n), this.#used);
      this.#used += n;
      from += n;
    }
    this.#total += bytes.length;
  }

  /** One body line without its line break (postal-mime strips CR and LF), as PassThroughDecoder takes it. */
  update(line: Uint8Array): void {
    this.#write(line);
    this.#write(LF);
  }

  async finalize(): Promise<ArrayBuffer> {
    const out = new Uint8Array(this.#total);
    let at = 0;
    for (const segment of this.#segments) {
      out.set(segment, at);
      at += segment.length;
    }
    out.set(this.#current.subarray(0, this.#used), at);
    this.#segments = [];
    this.#current = new Uint8Array(0);
    return out.buffer;
  }
}

interface MimeNodeInternals {
  contentDecoder: unknown;
  setupContentDecoder(transferEncoding: string): void;
}

const INSTALLED = Symbol.for("postern.postal-mime.compact-pass-through");

/** Wraps postal-mime's decoder choice once per process; idempotent. Throws if postal-mime's internals moved. */
export function installCompactPassThrough(): void {
  const root = (new PostalMime() as unknown as { root?: object }).root;
  const proto = root
    ? (Object.getPrototypeOf(root) as Partial<MimeNodeInternals> & { [INSTALLED]?: true })
    : null;
  if (!proto || typeof proto.setupContentDecoder !== "function")
    throw new PosternError(
      "dependency-failed",
      "postal-mime's MimeNode.setupContentDecoder is gone: shared/mail/postal-mime-pass-through.ts needs a new hook",
    );
  if (proto[INSTALLED]) return;
  const choose = proto.setupContentDecoder;
  proto.setupContentDecoder = function (this: MimeNodeInternals, transferEncoding: string): void {
    choose.call(this, transferEncoding);
    // postal-mime's own test, in its own order (mime-node.ts): base64 first, then quoted-printable
    if (!/base64/i.test(transferEncoding) && !/quoted-printable/i.test(transferEncoding))
      this.contentDecoder = new CompactPassThroughDecoder();
  };
  proto[INSTALLED] = true;
}
