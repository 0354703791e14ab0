import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// StepPayload's `fresh`, `noPlan` and `channelOpen` are an optimisation protocol: each saves a read, and a wrong
// one skips a read that a rule needs (a plan card never sent, a closed channel taken for open: G14, G18). It was
// set in two modules and read in two more; now one module owns what they mean (shared/agent/loop/step-knowledge.ts),
// the payload module declares them and builds a new run's first message, and nothing else names them.

const ROOT = resolve(import.meta.dirname, "../../..");
const OWNERS = ["shared/payloads/agent-step.ts", "shared/agent/loop/step-knowledge.ts"];
/** A read (`msg.noPlan`) or a write (`noPlan: true`, the fields' only value) of a protocol field. */
const FIELD = /\.(fresh|noPlan|channelOpen)\b|\b(fresh|noPlan|channelOpen)\s*:\s*true\b/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** `file:line field` of every use of a protocol field in `text` (comments aside). */
function uses(path: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/\/\/.*$/gm, "");
  return [...code.matchAll(FIELD)].map(
    (m) => `${path}:${code.slice(0, m.index).split("\n").length} ${m[1] ?? m[2]}`,
  );
}

describe("the step message's knowledge fields have one owner", () => {
  it("finds a read and a write in a probe, and not the words in prose", () => {
    expect(uses("probe.ts", "if (msg.noPlan === true) x();\nsend({ runId, channelOpen: true });\n")).toEqual([
      "probe.ts:1 noPlan",
      "probe.ts:2 channelOpen",
    ]);
    expect(uses("probe.ts", "// a fresh read\nconst fresh = freshText(body);\nf(fresh: string);\n")).toEqual(
      [],
    );
  });

  it("no file under shared/ but the owners names them", () => {
    const found = sources(join(ROOT, "shared"))
      .map((p) => relative(ROOT, p))
      .filter((p) => !OWNERS.includes(p))
      .flatMap((p) => uses(p, readFileSync(join(ROOT, p), "utf8")));
    expect(found).toEqual([]);
  });
});
