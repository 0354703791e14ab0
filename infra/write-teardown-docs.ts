/** `npm run docs:teardown`: writes docs/deploy.md's table of what a stack keeps (infra/retained.ts). */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PosternError } from "../shared/errors.ts";
import { TEARDOWN_BEGIN, teardownTable } from "./retained.ts";
import { synthShapes, teardownBlock } from "./teardown-docs.ts";

const root = resolve(import.meta.dirname, "..");
const file = join(root, "docs/deploy.md");
const doc = readFileSync(file, "utf8");
const block = teardownBlock(doc);
if (block === null) throw new PosternError("misconfigured", `${file} has no ${TEARDOWN_BEGIN} block`);
writeFileSync(file, doc.replace(block, teardownTable(synthShapes(root))));
console.log(`wrote the teardown table in ${file}`);
