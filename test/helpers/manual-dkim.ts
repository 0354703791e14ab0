// A hand-rolled relaxed/relaxed rsa-sha256 DKIM signer (RFC 6376 §3.4.2, §3.4.4, §3.7) for
// signatures mailauth refuses to make: an h= without From, extra or oddly-cased tags. It signs
// exactly what it is told, so tests can build hostile-but-valid signatures.

import { createHash, sign } from "node:crypto";

const relaxedHeader = (field: string): string => {
  const colon = field.indexOf(":");
  const name = field.slice(0, colon).trim().toLowerCase();
  const value = field
    .slice(colon + 1)
    .replace(/\r\n(?=[ \t])/g, "")
    .replace(/[ \t]+/g, " ")
    .trim();
  return `${name}:${value}`;
};

const relaxedBody = (body: string): string => {
  const lines = body.split("\r\n").map((line) => line.replace(/[ \t]+/g, " ").replace(/ $/, ""));
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines.length === 0 ? "" : `${lines.join("\r\n")}\r\n`;
};

export type ManualSignOptions = {
  domain: string;
  selector: string;
  privateKeyPem: string;
  /** field names to sign, in h= order; the last instance of each is signed */
  headers: string[];
  /** extra tag-specs put before bh=, e.g. ["L=16"] */
  extraTags?: string[];
};

/** `raw` (CRLF, with a header/body separator) with a DKIM-Signature prepended. */
export function signManually(raw: string, opts: ManualSignOptions): Buffer {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const fields = head.split(/\r\n(?![ \t])/);
  const bh = createHash("sha256").update(relaxedBody(body)).digest("base64");
  const tags = [
    "v=1",
    "a=rsa-sha256",
    "c=relaxed/relaxed",
    `d=${opts.domain}`,
    `s=${opts.selector}`,
    `h=${opts.headers.join(":")}`,
    ...(opts.extraTags ?? []),
    `bh=${bh}`,
    "b=",
  ];
  const unsigned = `DKIM-Signature: ${tags.join("; ")}`;
  const remaining = [...fields];
  const signedLines = opts.headers.flatMap((name) => {
    const index = remaining.findLastIndex(
      (f) => f.slice(0, f.indexOf(":")).trim().toLowerCase() === name.toLowerCase(),
    );
    if (index < 0) return [];
    const [field] = remaining.splice(index, 1);
    return [`${relaxedHeader(field as string)}\r\n`];
  });
  const data = signedLines.join("") + relaxedHeader(unsigned);
  const b = sign("sha256", Buffer.from(data), opts.privateKeyPem).toString("base64");
  return Buffer.from(`${unsigned}${b}\r\n${raw}`);
}
