import type { MimeShape } from "./limits.ts";
import { parseStructuredHeader } from "./structured-header.ts";

/**
 * Structural pre-scan of a raw message (G7): header block sizes, MIME depth and part count, measured on the
 * raw bytes before postal-mime builds a tree. It walks the message the way postal-mime 4.0.0 does (lines end
 * at LF, trailing CRs dropped; a part's headers end at the first empty line; boundary lines are checked against
 * the open multiparts innermost first, and an enclosing message's boundaries before an embedded message's),
 * keeps only Content-Type / -Transfer-Encoding / -Disposition, and stops as soon as a budget is exceeded, so a
 * 10,000-deep or 100,000-part tree or a 50 MB header costs at most one budget's worth of work.
 */

export interface ScanBudget {
  readonly maxHeaderBytes: number;
  readonly maxMimeDepth: number;
  readonly maxMimeParts: number;
}

export interface MimeScan extends MimeShape {
  /** True when the scan stopped early because a budget was exceeded (the shape then exceeds that budget). */
  readonly stoppedEarly: boolean;
  /**
   * An inline message/rfc822 part is transfer-encoded (RFC 2046 5.2.1 forbids that), so its inner tree cannot be
   * seen without decoding: the parser must then keep every embedded message as an opaque attachment.
   */
  readonly encodedEmbeddedMessage: boolean;
}

interface Part {
  readonly depth: number;
  readonly parent: Part | null;
  /** Index of the (embedded) message this part belongs to: 0 = the message itself. */
  readonly frame: number;
  readonly parentMultipart: string | null;
  /** Subtype once the headers say this part is a multipart with a boundary. */
  multipart: string | null;
  inHeader: boolean;
  headerBytes: number;
  capture: "content-type" | "content-transfer-encoding" | "content-disposition" | null;
  fields: Map<string, string>;
}

interface Boundary {
  readonly value: Uint8Array;
  readonly part: Part;
}

const CAPTURED = new Set(["content-type", "content-transfer-encoding", "content-disposition"]);
const headerDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

function isWsp(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09;
}

/** Only SP and HTAB surround a field name (RFC 5322); String.trim would turn `\u00a0Content-Type` into one. */
function trimWsp(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isWsp(s.charCodeAt(a))) a++;
  while (b > a && isWsp(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

function matchesBoundary(line: Uint8Array, b: Uint8Array): boolean | "end" | "sep" {
  if (line.length < b.length + 2) return false;
  for (let j = 0; j < b.length; j++) if (line[j + 2] !== b[j]) return false;
  let end = b.length + 2;
  let terminator = false;
  if (line.length >= b.length + 4 && line[end] === 0x2d && line[end + 1] === 0x2d) {
    terminator = true;
    end += 2;
  }
  for (let j = end; j < line.length; j++) if (!isWsp(line[j])) return false;
  return terminator ? "end" : "sep";
}

/** The walk's state: what it has measured so far, the open multiparts of each message frame, the part being read. */
interface Walk {
  readonly budget: ScanBudget;
  headerBytes: number;
  maxPartHeaderBytes: number;
  depth: number;
  parts: number;
  encodedEmbeddedMessage: boolean;
  readonly root: Part;
  /** Open multipart boundaries per frame (0 = the message itself, then each inline embedded message). */
  readonly frames: Boundary[][];
  readonly frameRoots: Part[];
  current: Part;
}

export function scanMime(raw: Uint8Array, budget: ScanBudget): MimeScan {
  const walk = startWalk(budget);
  let pos = 0;
  while (pos < raw.length) {
    const start = pos;
    let lf = raw.indexOf(0x0a, pos);
    if (lf < 0) lf = raw.length;
    pos = lf + 1;
    let end = lf;
    while (end > start && raw[end - 1] === 0x0d) end--;
    const line = raw.subarray(start, end);
    const rawLength = Math.min(pos, raw.length) - start;
    if (line.length > 2 && line[0] === 0x2d && line[1] === 0x2d && boundaryLine(walk, line)) {
      if (overBudget(walk)) return measured(walk, true);
      continue;
    }
    if (!walk.current.inHeader) continue;
    if (line.length === 0) endHeaders(walk, walk.current);
    else headerLine(walk, walk.current, line, rawLength);
    if (overBudget(walk)) return measured(walk, true);
  }
  return measured(walk, false);
}

function newPart(parent: Part | null, frame: number, parentMultipart: string | null): Part {
  return {
    depth: parent ? parent.depth + 1 : 0,
    parent,
    frame,
    parentMultipart,
    multipart: null,
    inHeader: true,
    headerBytes: 0,
    capture: null,
    fields: new Map(),
  };
}

function startWalk(budget: ScanBudget): Walk {
  const root = newPart(null, 0, null);
  return {
    budget,
    headerBytes: 0,
    maxPartHeaderBytes: 0,
    depth: 0,
    parts: 1,
    encodedEmbeddedMessage: false,
    root,
    frames: [[]],
    frameRoots: [root],
    current: root,
  };
}

/** The stop (G7): checked after every line that adds to a measure, so the walk ends one line or part past a budget. */
function overBudget(walk: Walk): boolean {
  const { budget } = walk;
  return (
    walk.headerBytes > budget.maxHeaderBytes ||
    walk.maxPartHeaderBytes > budget.maxHeaderBytes ||
    walk.depth > budget.maxMimeDepth ||
    walk.parts > budget.maxMimeParts
  );
}

function measured(walk: Walk, stoppedEarly: boolean): MimeScan {
  return {
    headerBytes: walk.headerBytes,
    maxPartHeaderBytes: walk.maxPartHeaderBytes,
    depth: walk.depth,
    parts: walk.parts,
    stoppedEarly,
    encodedEmbeddedMessage: walk.encodedEmbeddedMessage,
  };
}

/** A part starts and counts toward the part and depth budgets; it is the part being read from now on. */
function enterPart(walk: Walk, part: Part): void {
  walk.parts++;
  walk.depth = Math.max(walk.depth, part.depth);
  walk.current = part;
}

/**
 * A part's headers ended: a multipart opens its boundary in the part's frame, and an inline embedded message
 * (not transfer-encoded) opens a frame of its own, whose tree counts toward our limits like the message's.
 */
function endHeaders(walk: Walk, part: Part): void {
  part.inHeader = false;
  const defaultType = part.parentMultipart === "digest" ? "message/rfc822" : "text/plain";
  const type = parseStructuredHeader(part.fields.get("content-type") ?? defaultType);
  if (type.value.startsWith("multipart/")) {
    const boundary = type.params.get("boundary");
    part.multipart = type.value.slice("multipart/".length);
    if (boundary) walk.frames[part.frame]?.push({ value: encoder.encode(boundary), part });
    return;
  }
  if (type.value !== "message/rfc822") return;
  const disposition = parseStructuredHeader(part.fields.get("content-disposition") ?? "").value;
  if (disposition !== "" && disposition !== "inline") return;
  const cte = (part.fields.get("content-transfer-encoding") ?? "").toLowerCase();
  if (cte.includes("base64") || cte.includes("quoted-printable")) {
    walk.encodedEmbeddedMessage = true;
    return;
  }
  // An inline embedded message is parsed as a message of its own: its tree counts toward our limits.
  const embedded = newPart(part, part.frame + 1, null);
  walk.frames.length = part.frame + 1;
  walk.frameRoots.length = part.frame + 1;
  walk.frames.push([]);
  walk.frameRoots.push(embedded);
  enterPart(walk, embedded);
}

/** One header line: its raw bytes count toward the header budgets; only the captured fields are kept as text. */
function headerLine(walk: Walk, part: Part, line: Uint8Array, rawLength: number): void {
  part.headerBytes += rawLength;
  if (part === walk.root) walk.headerBytes = part.headerBytes;
  else walk.maxPartHeaderBytes = Math.max(walk.maxPartHeaderBytes, part.headerBytes);
  if (part.headerBytes > walk.budget.maxHeaderBytes) return;
  if (isWsp(line[0])) {
    if (part.capture)
      part.fields.set(part.capture, (part.fields.get(part.capture) ?? "") + headerDecoder.decode(line));
    return;
  }
  part.capture = null;
  const colon = line.indexOf(0x3a);
  if (colon < 0) return;
  const key = trimWsp(headerDecoder.decode(line.subarray(0, colon))).toLowerCase();
  if (!CAPTURED.has(key) || part.fields.has(key)) return;
  part.capture = key as Part["capture"];
  part.fields.set(key, headerDecoder.decode(line.subarray(colon + 1)));
}

/**
 * A `--` line that matches an open boundary, the enclosing message's frames first and innermost multipart first
 * within a frame: it finishes everything opened after that multipart, and starts a part unless it is the end.
 */
function boundaryLine(walk: Walk, line: Uint8Array): boolean {
  const { frames, frameRoots } = walk;
  for (let f = 0; f < frames.length; f++) {
    const stack = frames[f] ?? [];
    for (let i = stack.length - 1; i >= 0; i--) {
      const b = stack[i] as Boundary;
      const kind = matchesBoundary(line, b.value);
      if (!kind) continue;
      // Everything opened after this multipart is finished: inner multiparts and embedded messages.
      frames.length = f + 1;
      frameRoots.length = f + 1;
      if (kind === "end") {
        stack.length = i;
        walk.current = b.part.parent && b.part.parent.frame === f ? b.part.parent : (frameRoots[f] as Part);
      } else {
        stack.length = i + 1;
        enterPart(walk, newPart(b.part, f, b.part.multipart));
      }
      return true;
    }
  }
  return false;
}
