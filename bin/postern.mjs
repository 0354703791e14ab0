#!/usr/bin/env node
// Entry point for `npx postern`. The CLI is TypeScript; tsx runs it without a build step.
import "./node-version-guard.mjs";
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
