/**
 * `node --import tsx infra/bundle-function.ts <entry> <outfile> <stubs JSON>`: one function's bundle, built with
 * esbuildOptions (infra/bundling.ts). CDK's local bundling runs this in a child process (bundledCode).
 */
import { build } from "esbuild";
import { PosternError } from "../shared/errors.ts";
import { type BundleStubs, esbuildOptions } from "./bundling.ts";

const [entry, outfile, stubs] = process.argv.slice(2);
if (!entry || !outfile || !stubs)
  throw new PosternError("usage", "usage: bundle-function.ts <entry> <outfile> <stubs JSON>");
await build(esbuildOptions(entry, outfile, { stubs: JSON.parse(stubs) as BundleStubs }));
