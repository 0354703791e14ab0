import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { AssetHashType, DockerImage } from "aws-cdk-lib";
import { Code } from "aws-cdk-lib/aws-lambda";
import { type BundlingOptions, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import type { BuildOptions, Plugin } from "esbuild";

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
 * Code a function's bundle leaves out: `packages` are resolved to a stub instead of the package (esbuild's alias),
 * `files` replace one relative import of one module (a plugin: an alias only matches package names). Stubs live
 * in infra/bundle-stubs/; each throws an error that names it, and records the call, if anything calls it.
 */
export interface BundleStubs {
  readonly packages: Readonly<Record<string, string>>;
  /**
   * Repository modules replaced by another for this bundle (paths from the project root): every import of
   * `module` but the replacement's own resolves to `with`. Applied only to split bundles (see `esbuildOptions`).
   */
  readonly swaps?: readonly { readonly module: string; readonly with: string }[];
  readonly files: readonly {
    /** The importing module, as the end of its path (`libmime/lib/libmime.js`). */
    readonly importer: string;
    /** The import exactly as that module writes it (`./mimetypes`). */
    readonly request: string;
    readonly stub: string;
  }[];
}

export const NO_STUBS: BundleStubs = { packages: {}, files: [] };

const stub = (file: string) => join(STUBS_DIR, file);

/**
 * What every pipeline function's bundle leaves out: the AWS SDK's default credential chain.
 *
 * - @aws-sdk/credential-provider-node (with the SSO, ini, process, web-identity, login, container and IMDS
 *   providers, and the @aws-sdk/nested-clients they build: ~100 KB a bundle): the default credential chain every
 *   SDK client imports. In Lambda it stops at its first link, the environment: infra/constructs/pipeline-function.ts
 *   deploys on-demand functions (no capacity provider, no SnapStart; test/infra/stack.test.ts holds it to that), to
 *   which Lambda hands the execution role's keys in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN.
 *   Every client the functions build takes that chain: makeClients (DynamoDB, S3, SQS) and makeSendingSesClient
 *   (SESv2) pass credentials only for the emulators (`resources.endpoints`, never set by resourcesFromEnv), and the
 *   model factory's BedrockRuntimeClient and awsSecretSource's SSM and Secrets Manager clients pass none. The stub
 *   is that first link and refuses the rest by name (infra/bundle-stubs/credential-provider-node.ts, held to the
 *   real chain by test/infra/bundle-stubs.test.ts). It runs in every process, on the first AWS call; only its
 *   refusals count as stub calls.
 *
 * Left in: @aws-sdk/token-providers (and the SSO-OIDC client in nested-clients) where the Bedrock runtime client
 * imports it for its bearer-token auth scheme (Bedrock API keys): that is not the credential chain, and an API key
 * is a way to call Bedrock that Postern does not rule out.
 */
export const LAMBDA_STUBS: BundleStubs = {
  packages: { "@aws-sdk/credential-provider-node": stub("credential-provider-node.ts") },
  files: [],
};

/**
 * @smithy/core/event-streams (~20 KB), for a function whose clients are DynamoDB, S3, SQS and SESv2 only: the S3
 * client wires an event-stream marshaller into every client for SelectObjectContent, and the protocols load the
 * event-stream serde on the first event-stream member they meet. None of those services' operations that Postern
 * calls has one (S3's only event-stream operation is SelectObjectContent; DynamoDB, SQS and SESv2 have none). The
 * stub keeps the real config resolver (run when the S3 client is built); its marshaller and serde throw by name.
 *
 * Not for agent-step: its Bedrock runtime client builds an EventStreamPayloadHandler, and with it a real
 * EventStreamCodec, in its constructor (@aws-sdk/middleware-eventstream resolveEventStreamConfig), whichever
 * operation is called later; the websocket and event-stream handlers import more of the module than the stub
 * has. Converse itself streams nothing, but the client is not event-stream free, so the module stays.
 */
const NO_EVENT_STREAMS: BundleStubs["packages"] = {
  "@smithy/core/event-streams": stub("smithy-event-streams.ts"),
};

/**
 * What the outbound bundle leaves out: LAMBDA_STUBS, and the event streams (NO_EVENT_STREAMS: it calls DynamoDB,
 * S3 GetObject / PutObject, SQS and SESv2 SendEmail). test/infra/bundle-load.test.ts sends a reply through CDK's
 * outbound bundle with no stub called.
 */
export const OUTBOUND_STUBS: BundleStubs = {
  packages: { ...LAMBDA_STUBS.packages, ...NO_EVENT_STREAMS },
  files: [],
};

/**
 * What the agent-step bundle leaves out: LAMBDA_STUBS only (see NO_EVENT_STREAMS for why its event streams stay).
 * test/infra/bundle-load.test.ts runs CDK's agent-step bundle through rounds with the scripted model, a Bedrock
 * model and the key reads from SSM and Secrets Manager, with no stub called.
 *
 * And what it loads later: the MCP client (shared/mcp/open-session.ts, the SDK and ajv, about 0.6 MB of the
 * bundle) is swapped for shared/mcp/lazy-open-session.ts, which imports it on a run's first MCP connection, from a
 * chunk of its own (test/infra/pipeline-bundles.test.ts holds the entry free of it and connects through the chunk).
 */
export const AGENT_STEP_STUBS: BundleStubs = {
  ...LAMBDA_STUBS,
  swaps: [{ module: "shared/mcp/open-session.ts", with: "shared/mcp/lazy-open-session.ts" }],
};

/**
 * What the delivery-events bundle leaves out: as the outbound's (its clients are the same DynamoDB, S3 and SQS
 * ones, and it calls DynamoDB only).
 */
export const DELIVERY_EVENTS_STUBS: BundleStubs = OUTBOUND_STUBS;

/**
 * What the verify bundle leaves out (~1.1 MB of 2.7 MB, and its cold start with it: bench/bundle.ts).
 * test/infra/verify-bundle.test.ts runs the DKIM corpora (sender proof with mailauth's full results), the MIME
 * corpus (parsing) and the reply corpora (fresh text, HTML included) through a bundle built with these stubs,
 * compares every result with the unbundled code, checks that only the importers named here reach a stub, and fails
 * if a stub is called; test/infra/bundle-load.test.ts runs CDK's own verify bundle on a signed, accepted mail.
 *
 * - joi: mailauth builds exactly one schema with it (a DKIM key's p= is base64, RFC 6376 §3.6.1); the stub is
 *   that schema, held to the real Joi by test/infra/bundle-stubs.test.ts.
 * - iconv-lite, encoding-japanese: libmime's charset decoding, which the DKIM verifier reaches only through
 *   `libmime.parseHeaderValue` on the top-level Content-Type, to find its multipart boundary. A parameter value
 *   is charset-decoded only when it is written in RFC 2231 extended form (`boundary*=iso-8859-1''...`) or holds an
 *   RFC 2047 encoded word; no mail client writes a boundary that way (RFC 2046 §5.1.1: boundaries are 7-bit
 *   bchars). If a hostile sender does, libmime catches the stub's error and decodes as UTF-8 (its own fallback
 *   for a charset iconv-lite does not know); the boundary feeds only mailauth's `mimeStructureStart`, an
 *   informational field sender proof never reads (shared/gate/dkim-checks.ts). The verdict cannot change, and the
 *   bundle test proves it on such mail.
 * - dom-serializer (and the `entities` copy only it imports): html-to-text calls it only for the `blockHtml` and
 *   `inlineHtml` formats, domutils only in getOuterHTML / getInnerHTML; shared/mail/fresh-text-html.ts uses none.
 * - libmime's `./mimetypes` (68 KB): only `detectExtension` / `detectMimeType` read it; mailauth calls
 *   `parseHeaderValue` and `foldLines` only.
 * - mailauth's `../dkim/dkim-signer` as its ARC module requires it: only `createSeal` (ARC sealing) uses it; the
 *   DKIM verifier takes `getARChain` alone from that module.
 * - the default credential chain (LAMBDA_STUBS), and @smithy/core/event-streams (NO_EVENT_STREAMS): verify calls
 *   S3 GetObject / PutObject, SQS and DynamoDB, none with an event stream.
 *
 * Not stubbed, because verify runs them: tldts (mailauth computes `status.aligned` with it on every signature),
 * the rest of libmime, punycode.js, postal-mime, html-to-text, node-html-parser (these two load on the first
 * HTML-only mail: shared/mail/fresh-text-html.ts).
 */
export const VERIFY_STUBS: BundleStubs = {
  packages: {
    joi: stub("joi.ts"),
    "iconv-lite": stub("iconv-lite.ts"),
    "encoding-japanese": stub("encoding-japanese.ts"),
    "dom-serializer": stub("dom-serializer.ts"),
    ...LAMBDA_STUBS.packages,
    ...NO_EVENT_STREAMS,
  },
  files: [
    {
      importer: "libmime/lib/libmime.js",
      request: "./mimetypes",
      stub: stub("libmime-mimetypes.ts"),
    },
    {
      importer: "mailauth/lib/arc/index.js",
      request: "../dkim/dkim-signer",
      stub: stub("mailauth-dkim-signer.ts"),
    },
  ],
};

/** Each pipeline function's stubs, by its directory under functions/: what the stack, tests and benchmark build. */
export const FUNCTION_STUBS = {
  verify: VERIFY_STUBS,
  "agent-step": AGENT_STEP_STUBS,
  outbound: OUTBOUND_STUBS,
  "delivery-events": DELIVERY_EVENTS_STUBS,
  // Its clients are the outbound's (DynamoDB, SQS) and Secrets Manager's, none with event streams.
  webhooks: OUTBOUND_STUBS,
} as const satisfies Record<string, BundleStubs>;

const PROJECT_ROOT = join(import.meta.dirname, "..");

/** The esbuild plugin for `BundleStubs.swaps`. */
function moduleSwaps(swaps: NonNullable<BundleStubs["swaps"]>): Plugin {
  const abs = swaps.map((w) => ({ module: join(PROJECT_ROOT, w.module), with: join(PROJECT_ROOT, w.with) }));
  const names = new Set(swaps.map((w) => basename(w.module)));
  return {
    name: "postern-module-swaps",
    setup(build) {
      build.onResolve({ filter: /^\.{1,2}\// }, (args) => {
        if (!names.has(basename(args.path))) return undefined;
        const target = join(args.resolveDir, args.path);
        const hit = abs.find((w) => w.module === target && args.importer !== w.with);
        return hit ? { path: hit.with } : undefined;
      });
    },
  };
}

/** The esbuild plugin for `BundleStubs.files`. */
function fileStubs(files: BundleStubs["files"]): Plugin {
  const requests = new Set(files.map((f) => f.request));
  return {
    name: "postern-file-stubs",
    setup(build) {
      build.onResolve({ filter: /^\.{1,2}\// }, (args) => {
        if (!requests.has(args.path)) return undefined;
        const importer = args.importer.replaceAll("\\", "/");
        const hit = files.find(
          (f) => f.request === args.path && importer.endsWith(`/node_modules/${f.importer}`),
        );
        return hit ? { path: hit.stub } : undefined;
      });
    },
  };
}

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
 * NodejsFunction bundling props (the console's function): the local esbuild CLI (no Docker), ESM, SDK bundled,
 * config copied in. The pipeline functions are bundled by `bundledCode` instead, with `esbuildOptions` itself.
 */
export function cdkBundling(files: ShippedFiles): BundlingOptions {
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
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir, outputDir) => copyCommands(files, outputDir),
    },
  };
}

/**
 * The esbuild options of every function: what `bundledCode` builds for CDK, and what the bundle tests and
 * bench/bundle.ts build (`cdkBundling` gives the console's NodejsFunction the same flags for the esbuild CLI).
 * `stubs` leave code out (FUNCTION_STUBS); `external` and `oneFile` let the benchmark measure the alternatives (SDK
 * from the runtime; no chunks) for comparison.
 */
export function esbuildOptions(
  entry: string,
  outfile: string,
  opts: { external?: string[]; stubs?: BundleStubs; oneFile?: boolean } = {},
): BuildOptions {
  const stubs = opts.stubs ?? NO_STUBS;
  // A module swapped for a lazy one must be split (see AGENT_STEP_STUBS); every other bundle is one file.
  // `oneFile` drops the swaps too: what agent-step shipped before, for bench/bundle.ts's baseline.
  const swaps = opts.oneFile ? [] : (stubs.swaps ?? []);
  const output: BuildOptions =
    swaps.length === 0
      ? { entryPoints: [entry], outfile }
      : {
          // `outfile` is the entry's output; what it imports dynamically is split into `chunks/` beside it and
          // loaded when first imported: agent-step's MCP client is parsed only by a run that talks to an MCP
          // server (bench/bundle.ts measures the cold start with and without it).
          entryPoints: { [basename(outfile).replace(/\.m?js$/, "")]: entry },
          outdir: dirname(outfile),
          outExtension: { ".js": extname(outfile) || ".js" },
          splitting: true,
          chunkNames: "chunks/[name]-[hash]",
        };
  const plugins = [
    ...(swaps.length > 0 ? [moduleSwaps(swaps)] : []),
    ...(stubs.files.length > 0 ? [fileStubs(stubs.files)] : []),
  ];
  return {
    ...output,
    bundle: true,
    platform: "node",
    target: BUNDLE.target,
    format: BUNDLE.format,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    keepNames: BUNDLE.keepNames,
    banner: { js: ESM_REQUIRE_BANNER },
    external: opts.external ?? [],
    alias: { ...stubs.packages },
    plugins,
    logLevel: "warning",
  };
}

/** Copy the config and its scripts into a bundle directory (as `copyCommands` does for the console). */
export function copyShipped(files: ShippedFiles, outputDir: string): void {
  cpSync(files.configFile, join(outputDir, basename(files.configFile)));
  for (const rel of files.scripts) {
    mkdirSync(dirname(join(outputDir, rel)), { recursive: true });
    cpSync(join(files.configDir, rel), join(outputDir, rel));
  }
}

/**
 * A pipeline function's code: `esbuildOptions` run by infra/bundle-function.ts in a child process (CDK's local
 * bundling is synchronous, esbuild plugins are not), so what CDK deploys is built by the very options the bundle
 * tests and bench/bundle.ts use, stubs included; then the config is copied in. Hashed by its output, as
 * NodejsFunction does. There is no Docker fallback: bundling runs here or the synth fails.
 */
export function bundledCode(opts: {
  readonly entry: string;
  readonly projectRoot: string;
  readonly files: ShippedFiles;
  readonly stubs?: BundleStubs;
}): Code {
  const stubs = JSON.stringify(opts.stubs ?? NO_STUBS);
  return Code.fromAsset(opts.projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling either succeeds or throws.
      image: DockerImage.fromRegistry("postern-local-bundling-only"),
      // Never run either, but CDK caches a bundle by its bundling options (functions do not count): what makes
      // one function's bundle differ from another's must be here, or every function gets the first one's.
      command: [
        "postern-bundle-function",
        opts.entry,
        stubs,
        opts.files.configFile,
        opts.files.configDir,
        ...opts.files.scripts,
      ],
      local: {
        tryBundle(outputDir: string): boolean {
          execFileSync(
            process.execPath,
            [
              "--import",
              "tsx",
              join(import.meta.dirname, "bundle-function.ts"),
              opts.entry,
              join(outputDir, "index.mjs"),
              stubs,
            ],
            { cwd: opts.projectRoot, stdio: ["ignore", 2, 2] },
          );
          copyShipped(opts.files, outputDir);
          return true;
        },
      },
    },
  });
}
