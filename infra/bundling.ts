import { basename, join } from "node:path";
import { type BundlingOptions, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import type { BuildOptions } from "esbuild";

/**
 * How every function is bundled, in one place, so the bundle-load test and the benchmark build exactly what CDK
 * deploys. ESM output needs a `require` for the CommonJS dependencies (mailauth, nodemailer) that call
 * `require("crypto")` and friends: the banner gives them one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __postern_createRequire } from 'node:module'; const require = __postern_createRequire(import.meta.url);";

export const BUNDLE = {
  target: "node24",
  format: "esm",
  mainFields: ["module", "main"],
  minify: true,
  // Powertools and the SDK rely on class names in error handling (`err.name`), which minification would mangle.
  keepNames: true,
  // The SDK is bundled, not taken from the Lambda runtime: versions are the ones the tests ran against, and
  // tree-shaken single-file bundles start faster than the runtime's full SDK (see bench/bundle.ts).
  bundleAwsSdk: true,
} as const;

const STUBS_DIR = join(import.meta.dirname, "bundle-stubs");

/**
 * Modules left out of the verify bundle: esbuild resolves each of these package names to a stub in
 * infra/bundle-stubs/ instead. Every stub throws an error that names it (and records the call) if anything calls
 * it. test/infra/verify-bundle.test.ts runs the DKIM corpora (sender proof), the MIME corpus (parsing) and the reply
 * corpora (fresh text, HTML included) through a bundle built with these stubs, compares every result with the
 * unbundled code, and fails if a stub was called; test/infra/bundle-load.test.ts runs CDK's own verify bundle on
 * a signed, accepted mail. Together they are ~1 MB of the bundle and a third of its cold start (bench/bundle.ts).
 *
 * - joi: mailauth builds exactly one schema with it (a DKIM key's p= is base64, RFC 6376 §3.6.1); the stub is
 *   that schema, held to the real Joi by test/infra/joi-stub.test.ts.
 * - iconv-lite, encoding-japanese: libmime's charset decoding, which the DKIM verifier reaches only through
 *   `libmime.parseHeaderValue` on the top-level Content-Type, to find its multipart boundary. A parameter value
 *   is charset-decoded only when it is written in RFC 2231 extended form (`boundary*=iso-8859-1''...`) or holds an
 *   RFC 2047 encoded word; no mail client writes a boundary that way (RFC 2046 §5.1.1: boundaries are 7-bit
 *   bchars). If a hostile sender does, libmime catches the stub's error and decodes as UTF-8 (its own fallback
 *   for a charset iconv-lite does not know); the boundary feeds only mailauth's `mimeStructureStart`, an
 *   informational field sender proof never reads (shared/gate/dkim-checks.ts). The verdict cannot change, and the
 *   bundle test proves it on such a mail.
 * - dom-serializer (and the `entities` copy only it imports): html-to-text calls it only for the `blockHtml` and
 *   `inlineHtml` formats, domutils only in getOuterHTML / getInnerHTML; shared/mail/fresh-text-html.ts uses none.
 *
 * Not stubbed, because verify runs them: tldts (mailauth computes `status.aligned` with it on every signature),
 * libmime itself (parseHeaderValue, foldLines), punycode.js, postal-mime, html-to-text, node-html-parser.
 */
export const VERIFY_STUBS: Readonly<Record<string, string>> = {
  joi: join(STUBS_DIR, "joi.ts"),
  "iconv-lite": join(STUBS_DIR, "iconv-lite.ts"),
  "encoding-japanese": join(STUBS_DIR, "encoding-japanese.ts"),
  "dom-serializer": join(STUBS_DIR, "dom-serializer.ts"),
};

/** Where the deployment config and its scripts land in the function package (`/var/task`). */
export const TASK_ROOT = "/var/task";

export interface ShippedFiles {
  /** Absolute path of the config file; shipped under its own name. */
  readonly configFile: string;
  /** Script files relative to the config's directory, shipped at the same relative path. */
  readonly scripts: readonly string[];
  /** The config's directory (scripts are resolved against it). */
  readonly configDir: string;
}

/** The environment variable the function reads its config from (shared/config/runtime.ts). */
export function shippedConfigPath(files: ShippedFiles): string {
  return `${TASK_ROOT}/${basename(files.configFile)}`;
}

/** Shell commands that copy the config and its scripts into the bundle directory (after esbuild ran). */
export function copyCommands(files: ShippedFiles, outputDir: string): string[] {
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const cmds = [`cp ${q(files.configFile)} ${q(`${outputDir}/${basename(files.configFile)}`)}`];
  for (const rel of files.scripts) {
    const target = `${outputDir}/${rel}`;
    cmds.push(`mkdir -p "$(dirname ${q(target)})"`, `cp ${q(`${files.configDir}/${rel}`)} ${q(target)}`);
  }
  return cmds;
}

/**
 * NodejsFunction bundling props: the local esbuild (no Docker), ESM, SDK bundled, config copied in, `stubs`
 * aliased (esbuild's `--alias:<package>=<absolute path>`).
 */
export function cdkBundling(
  files: ShippedFiles,
  stubs: Readonly<Record<string, string>> = {},
): BundlingOptions {
  const aliases = Object.entries(stubs).map(([pkg, path]) => `${pkg}=${path}`);
  return {
    forceDockerBundling: false,
    target: BUNDLE.target,
    format: OutputFormat.ESM,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    keepNames: BUNDLE.keepNames,
    banner: ESM_REQUIRE_BANNER,
    bundleAwsSDK: BUNDLE.bundleAwsSdk,
    externalModules: [],
    ...(aliases.length > 0 ? { esbuildArgs: { "--alias": aliases } } : {}),
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir, outputDir) => copyCommands(files, outputDir),
    },
  };
}

/**
 * The esbuild JS-API equivalent of `cdkBundling` (CDK drives the esbuild CLI with the same flags). `external`
 * lets the benchmark measure the alternative (SDK from the runtime) for comparison.
 */
export function esbuildOptions(
  entry: string,
  outfile: string,
  opts: { external?: string[]; stubs?: Readonly<Record<string, string>> } = {},
): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: BUNDLE.target,
    format: BUNDLE.format,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    keepNames: BUNDLE.keepNames,
    banner: { js: ESM_REQUIRE_BANNER },
    external: opts.external ?? [],
    alias: { ...opts.stubs },
    logLevel: "warning",
  };
}
