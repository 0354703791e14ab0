import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// One definition per type (vercel/ai's packages/provider): two exported types with one name in shared/ let a
// field change land in one copy and a type error name the other. A narrowed view is written as a Pick or an
// Omit of the one record, never as a second interface under the same name.

const ROOT = resolve(import.meta.dirname, "../..");

const EXPORTED_TYPE =
  /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:type|interface|class|enum)\s+([A-Za-z_$][\w$]*)/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every exported type name defined in more than one file, with the files. */
function duplicateTypeNames(files: readonly { path: string; text: string }[]): Map<string, string[]> {
  const where = new Map<string, string[]>();
  for (const { path, text } of files)
    for (const m of text.matchAll(EXPORTED_TYPE)) {
      const name = m[1] as string;
      where.set(name, [...(where.get(name) ?? []), path]);
    }
  return new Map([...where].filter(([, paths]) => paths.length > 1));
}

/** `export interface X { ... }` or `export type X = { ... }`: an object type written out, with its body's start. */
const OBJECT_TYPE =
  /^export\s+(?:interface\s+([A-Za-z_$][\w$]*)(?:<[^>{]*>)?\s*\{|type\s+([A-Za-z_$][\w$]*)(?:<[^>=]*>)?\s*=\s*\{)/gm;

/** The body of the braces opened just before `start`, or null when they never close. */
function bodyFrom(text: string, start: number): string | null {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return text.slice(start, i);
  }
  return null;
}

/** The members of an object type's body as `name:type`, comments dropped and whitespace collapsed. */
function members(body: string): string[] {
  const code = body.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of code) {
    if ("{([<".includes(c)) depth++;
    else if ("})]>".includes(c)) depth--;
    if (depth === 0 && (c === ";" || c === "\n")) {
      // `name?:` is another type than `name:` (it admits undefined): the mark is part of the member
      const m = /^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*\??)\s*:\s*([\s\S]+?)\s*$/.exec(current);
      if (m) out.push(`${m[1]}:${(m[2] as string).replace(/\s+/g, " ")}`);
      if (c === ";" || depth === 0) current = "";
      continue;
    }
    current += c;
  }
  return out;
}

/**
 * Object types written out twice under different names: two exported object types whose members (four or more,
 * names and types) are the same set. A view derived with Pick/Omit/extends is not written out, so it never
 * counts; a hand copy does, whatever it is called.
 */
function copiesByShape(files: readonly { path: string; text: string }[]): string[][] {
  const byShape = new Map<string, string[]>();
  for (const { path, text } of files)
    for (const m of text.matchAll(OBJECT_TYPE)) {
      const name = (m[1] ?? m[2]) as string;
      const body = bodyFrom(text, (m.index ?? 0) + m[0].length);
      const shape = body === null ? [] : members(body).sort();
      if (shape.length < 4) continue;
      const key = shape.join("|");
      byShape.set(key, [...(byShape.get(key) ?? []), `${path}:${name}`]);
    }
  return [...byShape.values()].filter((names) => names.length > 1);
}

describe("one definition per type in shared/", () => {
  it("no two exported object types in shared/ are the same shape under two names", () => {
    const files = sources(join(ROOT, "shared")).map((path) => ({
      path: relative(ROOT, path),
      text: readFileSync(path, "utf8"),
    }));
    expect(copiesByShape(files)).toEqual([]);
  });

  it("finds a hand copy under another name, and not a Pick of it", () => {
    const record = [
      "export interface MessageRecord {",
      "  /** the id */",
      "  readonly id: string;",
      "  readonly threadId: string;",
      "  readonly subject: string | null;",
      "  readonly to: readonly string[];",
      "}",
    ].join("\n");
    const copy =
      "export type StoredMessage = {\n  id: string; threadId: string;\n  subject: string | null;\n  to: readonly string[];\n};\n";
    const pick = 'export type View = Pick<MessageRecord, "id" | "threadId" | "subject" | "to">;\n';
    const shorter =
      "export interface Small {\n  id: string;\n  threadId: string;\n  subject: string | null;\n}\n";
    expect(
      copiesByShape([
        { path: "a.ts", text: record },
        { path: "b.ts", text: copy + pick + shorter },
      ]),
    ).toEqual([["a.ts:MessageRecord", "b.ts:StoredMessage"]]);
  });

  it("no two files in shared/ export a type of the same name", () => {
    const files = sources(join(ROOT, "shared")).map((path) => ({
      path: relative(ROOT, path),
      text: readFileSync(path, "utf8"),
    }));
    expect(files.length).toBeGreaterThan(100);
    expect(Object.fromEntries(duplicateTypeNames(files))).toEqual({});
  });

  it("finds a name exported twice, whether as a type, an interface or a class", () => {
    const found = duplicateTypeNames([
      { path: "a.ts", text: "export interface RunRecord {\n  id: string;\n}\nexport type Only = 1;\n" },
      { path: "b.ts", text: "export type RunRecord = { id: number };\nexport class Mailbox {}\n" },
      { path: "c.ts", text: "export declare class Mailbox {}\n// export type Only = 2;\n" },
    ]);
    expect(Object.fromEntries(found)).toEqual({ RunRecord: ["a.ts", "b.ts"], Mailbox: ["b.ts", "c.ts"] });
  });
});
