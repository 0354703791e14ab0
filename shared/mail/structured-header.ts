/**
 * Content-Type / Content-Disposition parsing for the MIME pre-scan. It mirrors postal-mime 4.0.0
 * (`MimeNode.stripComments` / `parseStructuredHeader` / RFC 2231 continuations) on purpose: if the pre-scan read
 * a boundary differently from the parser, a hostile message could show the scan one tree and the parser
 * another. Every loop is a single pass over the value; no regular expression sees attacker text except
 * fixed, non-backtracking ones.
 */

export interface StructuredHeader {
  /** Lower-cased main value, e.g. `multipart/mixed`. */
  readonly value: string;
  /** Lower-cased parameter names; the first occurrence of a name wins. */
  readonly params: ReadonlyMap<string, string>;
}

/** RFC 822 comments, opened only where linear whitespace may stand (postal-mime's rule). */
export function stripComments(str: string): string {
  let result = "";
  let depth = 0;
  let escaped = false;
  let inQuote = false;
  let commentStart = -1;
  let inParameterValue = false;
  let endsWithWsp = false;
  const append = (c: string) => {
    result += c;
    endsWithWsp = c === " " || c === "\t";
  };
  for (let i = 0; i < str.length; i++) {
    const chr = str.charAt(i);
    if (escaped) {
      if (depth === 0) append(chr);
      escaped = false;
      continue;
    }
    if (chr === "\\") {
      escaped = true;
      if (depth === 0) append(chr);
      continue;
    }
    if (chr === '"' && depth === 0) {
      inQuote = !inQuote;
      append(chr);
      continue;
    }
    if (!inQuote) {
      if (chr === "(" && (!inParameterValue || !result.length || endsWithWsp)) {
        if (depth === 0) commentStart = i;
        depth++;
        continue;
      }
      if (chr === ")" && depth > 0) {
        depth--;
        continue;
      }
      if (depth === 0) {
        if (chr === "=") inParameterValue = true;
        else if (chr === ";") inParameterValue = false;
      }
    }
    if (depth === 0) append(chr);
  }
  if (depth === 0) return result;
  return str.indexOf(";", commentStart) < 0 ? result : str;
}

export function parseStructuredHeader(input: string): StructuredHeader {
  const str = stripComments(input);
  const params = new Map<string, string>();
  let main = "";
  let key: string | null = null;
  let value = "";
  let stage: "key" | "value" = "value";
  let pendingSpace = "";
  let quoteClosed = false;
  let quote = false;
  let escaped = false;
  const addChr = (c: string) => {
    if (value.length) value += pendingSpace;
    pendingSpace = "";
    value += c;
  };
  const takeValue = () => {
    const r = value;
    value = "";
    pendingSpace = "";
    quoteClosed = false;
    return r;
  };
  const storeParam = (name: string, v: string) => {
    if (!params.has(name)) params.set(name, v);
  };
  const storeValue = () => {
    const r = takeValue();
    if (key === null) main = r;
    else storeParam(key, r);
  };
  const storeEmptyKey = () => {
    const name = takeValue().trim();
    if (name) storeParam(name.toLowerCase(), "");
  };
  for (let i = 0; i < str.length; i++) {
    const chr = str.charAt(i);
    if (stage === "key") {
      if (chr === "=") {
        key = takeValue().trim().toLowerCase();
        stage = "value";
      } else if (chr === ";") storeEmptyKey();
      else value += chr;
      continue;
    }
    if (escaped) addChr(chr);
    else if (quote && chr === "\\") {
      escaped = true;
      continue;
    } else if (quote && chr === '"') {
      quote = false;
      quoteClosed = true;
    } else if (!quote && chr === '"') {
      quote = true;
      if (value.length) value += pendingSpace;
      pendingSpace = "";
    } else if (!quote && chr === ";") {
      storeValue();
      stage = "key";
    } else if (!quote && (chr === " " || chr === "\t")) pendingSpace += chr;
    else if (!quoteClosed) addChr(chr);
    escaped = false;
  }
  if (stage === "value") storeValue();
  else storeEmptyKey();
  joinContinuations(params);
  return { value: main.toLowerCase(), params };
}

/** RFC 2231 `name*0=`, `name*1*=` sections; like postal-mime, a joined value replaces a plain one. */
function joinContinuations(params: Map<string, string>): void {
  const sections = new Map<string, { nr: number; value: string; encoded: boolean }[]>();
  for (const [name, value] of [...params]) {
    const star = name.indexOf("*");
    if (star < 0) continue;
    const suffix = name.slice(star + 1);
    const encoded = name.endsWith("*");
    const digits = encoded ? suffix.slice(0, -1) : suffix;
    if (digits !== "" && !/^[0-9]{1,4}$/.test(digits)) continue;
    const base = name.slice(0, star);
    const nr = digits === "" ? 0 : Number(digits);
    let v = value;
    if (nr === 0 && encoded) {
      const q1 = v.indexOf("'");
      const q2 = q1 < 0 ? -1 : v.indexOf("'", q1 + 1);
      if (q2 >= 0) v = v.slice(q2 + 1);
    }
    const list = sections.get(base) ?? [];
    list.push({ nr, value: v, encoded });
    sections.set(base, list);
    params.delete(name);
  }
  for (const [base, list] of sections) {
    list.sort((a, b) => a.nr - b.nr);
    params.set(base, list.map((s) => (s.encoded ? percentDecode(s.value) : s.value)).join(""));
  }
}

function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
