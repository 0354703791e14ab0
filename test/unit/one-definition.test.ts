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

describe("one definition per type in shared/", () => {
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
