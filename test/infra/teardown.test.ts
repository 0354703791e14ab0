import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REMOVE, retainedResources, type TemplateLike, teardownTable } from "../../infra/retained.ts";
import { synthShapes, teardownBlock } from "../../infra/teardown-docs.ts";
import { ROOT } from "./synth.ts";

let shapes: { name: string; template: TemplateLike }[];
beforeAll(() => {
  shapes = synthShapes(ROOT);
}, 300_000);

describe("what a stack keeps, from its template", () => {
  it("docs/deploy.md's teardown table is the one the three shapes' templates give (npm run docs:teardown)", () => {
    const doc = teardownBlock(readFileSync(join(ROOT, "docs/deploy.md"), "utf8"));
    expect(doc).not.toBeNull();
    expect(doc).toBe(teardownTable(shapes));
  });

  it("every kept resource is kept on a failed create too (Retain), as the docs' failed-deploy section says, and has a removal command", () => {
    for (const { template } of shapes) {
      const kept = retainedResources(template);
      expect(kept.length).toBeGreaterThan(20);
      expect(kept.filter((r) => !r.keptOnFailedCreate)).toEqual([]);
      expect(kept.filter((r) => !(r.type in REMOVE)).map((r) => r.type)).toEqual([]);
    }
  });

  it("RetainExceptOnCreate is kept on delete but not on a failed create; Delete and no policy are not kept", () => {
    const t: TemplateLike = {
      Resources: {
        A: { Type: "AWS::S3::Bucket", DeletionPolicy: "Retain" },
        B: { Type: "AWS::S3::Bucket", DeletionPolicy: "RetainExceptOnCreate" },
        C: { Type: "AWS::S3::Bucket", DeletionPolicy: "Delete" },
        D: { Type: "AWS::S3::Bucket" },
      },
    };
    expect(retainedResources(t)).toEqual([
      { logicalId: "A", type: "AWS::S3::Bucket", keptOnFailedCreate: true },
      { logicalId: "B", type: "AWS::S3::Bucket", keptOnFailedCreate: false },
    ]);
  });
});
