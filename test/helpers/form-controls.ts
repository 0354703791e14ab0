/**
 * What a browser submits for the one form in `markup` (our own server-rendered HTML): each named input's value
 * (a checkbox only when checked, as "on" unless it has a value), each textarea's text, each select's selected
 * option (else its first). Values are un-escaped as the browser would.
 */
export function submittedFields(markup: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, attrs = ""] of markup.matchAll(/<input\b([^>]*)>/g)) {
    const a = attributes(attrs);
    if (a.name === undefined) continue;
    if (a.type === "checkbox" && a.checked === undefined) continue;
    fields[a.name] = a.value ?? (a.type === "checkbox" ? "on" : "");
  }
  for (const [, attrs = "", body = ""] of markup.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const name = attributes(attrs).name;
    if (name !== undefined) fields[name] = unescapeHtml(body);
  }
  for (const [, attrs = "", body = ""] of markup.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = attributes(attrs).name;
    const options = [...body.matchAll(/<option\b([^>]*)>/g)].map(([, o = ""]) => attributes(o));
    const chosen = options.find((o) => o.selected !== undefined) ?? options[0];
    if (name !== undefined && chosen?.value !== undefined) fields[name] = chosen.value;
  }
  return fields;
}

/** The names of every input, textarea and select in `markup`. */
export function controlNames(markup: string): Set<string> {
  const names = [...markup.matchAll(/<(?:input|textarea|select)\b([^>]*)>/g)].map(
    ([, attrs = ""]) => attributes(attrs).name,
  );
  return new Set(names.filter((n): n is string => n !== undefined));
}

function attributes(text: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [, key = "", value] of text.matchAll(/([a-zA-Z_:-]+)(?:="([^"]*)")?/g))
    out[key.toLowerCase()] = value === undefined ? "" : unescapeHtml(value);
  return out;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };
const unescapeHtml = (s: string): string =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITIES[e] ?? "");
