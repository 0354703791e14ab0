#!/usr/bin/env node
// Entry point for `npx postern` and `npm run postern`. The CLI is TypeScript written as erasable syntax only
// (tsconfig's erasableSyntaxOnly), so Node 24 runs it directly by stripping the types: no build step, and no
// compiler on every call (tsx took 3-9 s per command). The guard first: Node 20 cannot do this.
import "./node-version-guard.mjs";
import module from "node:module";

// V8's code cache for the CLI's modules (keyed by content, so an edited file is recompiled): the second and later
// calls skip most of the parsing. Kept where Node keeps it by default (the OS temp directory).
module.enableCompileCache?.();
await import("../cli/main.ts");
