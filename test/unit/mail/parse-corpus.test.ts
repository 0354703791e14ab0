import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import PostalMime from "postal-mime";
import { describe, expect, it } from "vitest";
import { attachmentLimits } from "../../../shared/config/schema.ts";
import { scanMime } from "../../../shared/mail/mime-scan.ts";
import { parseMail } from "../../../shared/mail/parse.ts";

const root = join(import.meta.dirname, "../../fixtures/mime");
function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (!/^(README|CORPUS-README|LICENSE|COPYRIGHT)|\.tsv$/.test(name)) yield path;
  }
}
const files = [...walk(root)].map((p) => relative(root, p));
const defaults = attachmentLimits.parse({});

describe("MIME corpus through parseMail", () => {
  it("holds every corpus file", () => {
    expect(files.length).toBe(113);
  });

  // How quickly is `npm run bench:bounds`'s business (every corpus file, against a bound).
  it.each(files)("%s parses or is refused with a reason", async (file) => {
    const raw = readFileSync(join(root, file));
    const result = await parseMail(raw, defaults);
    if (result.ok) expect(Array.isArray(result.mail.headers)).toBe(true);
    else expect(result.reason).toMatch(/^[a-z-]+$/);
  });
});

interface PmNode {
  depth: number;
  childNodes: PmNode[];
  subMessage?: unknown;
  content?: ArrayBuffer | null;
}

/** Entities and depth of postal-mime's own tree (its internals, pinned at 4.0.0), embedded messages included. */
async function postalShape(raw: Uint8Array, base = 0): Promise<{ parts: number; depth: number }> {
  const parser = new PostalMime();
  await parser.parse(raw);
  const nodes: PmNode[] = [];
  const visit = (n: PmNode) => {
    nodes.push(n);
    for (const c of n.childNodes) visit(c);
  };
  visit((parser as unknown as { root: PmNode }).root);
  let parts = nodes.length;
  let depth = Math.max(...nodes.map((n) => base + n.depth));
  for (const n of nodes) {
    if (n.subMessage === undefined) continue;
    const inner = await postalShape(new Uint8Array(n.content ?? new ArrayBuffer(0)), base + n.depth + 1);
    parts += inner.parts;
    depth = Math.max(depth, inner.depth);
  }
  return { parts, depth };
}

// Delivery and feedback reports: postal-mime keeps their embedded message opaque (hasReportParts), the scan
// still counts it. Over-counting only makes the limit stricter.
const REPORTS = new Set([
  "cpython-email/msg_16.txt",
  "mailparser/delivery-status.eml",
  "postal-mime/arf.eml",
  "postal-mime/bounce.eml",
]);

describe("the pre-scan sees the tree postal-mime builds", () => {
  const unlimited = { maxHeaderBytes: 1e9, maxMimeDepth: 1e9, maxMimeParts: 1e9 };
  it.each(files)("%s", async (file) => {
    const raw = readFileSync(join(root, file));
    const scan = scanMime(raw, unlimited);
    const pm = await postalShape(raw);
    if (REPORTS.has(file)) {
      expect(scan.parts).toBeGreaterThan(pm.parts);
      expect(scan.depth).toBeGreaterThanOrEqual(pm.depth);
    } else {
      expect({ parts: scan.parts, depth: scan.depth }).toEqual(pm);
    }
  });
});
