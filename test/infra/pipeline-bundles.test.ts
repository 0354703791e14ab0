import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { build, type Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { esbuildOptions, FUNCTION_STUBS } from "../../infra/bundling.ts";
import { ROOT } from "./synth.ts";

// What infra/bundling.ts LAMBDA_STUBS and NO_EVENT_STREAMS leave out of the agent-step and outbound bundles is
// really gone, and only the importers its comments reason about reach a stub (verify's own list is checked by
// test/infra/verify-bundle.test.ts). test/infra/bundle-load.test.ts runs CDK's bundles and shows no stub is called.

const FNS = ["agent-step", "outbound"] as const;
let dir: string;
const meta = {} as Record<(typeof FNS)[number], Metafile>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-pipeline-bundles-"));
  for (const fn of FNS) {
    const r = await build({
      ...esbuildOptions(join(ROOT, "functions", fn, "handler.ts"), join(dir, `${fn}.mjs`), {
        stubs: FUNCTION_STUBS[fn],
      }),
      metafile: true,
    });
    meta[fn] = r.metafile;
  }
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The modules whose code the bundle ships (bytes in its output). esbuild parses every module a front door
 * re-exports (outbound's wiring reaches shared/agent's door, which re-exports the step's model catalog) and then
 * drops what nothing uses (package.json "sideEffects": false): what was parsed and dropped is not in the function.
 */
const shipped = (fn: (typeof FNS)[number]): Set<string> =>
  new Set(
    Object.values(meta[fn].outputs).flatMap((o) =>
      Object.entries(o.inputs)
        .filter(([, i]) => i.bytesInOutput > 0)
        .map(([path]) => path),
    ),
  );
const inputs = (fn: (typeof FNS)[number]) => [...shipped(fn)];
const importersOf = (fn: (typeof FNS)[number], stub: string | undefined) => {
  const kept = shipped(fn);
  return Object.entries(meta[fn].inputs)
    .filter(([path]) => kept.has(path))
    .filter(([, input]) => input.imports.some((i) => i.path.endsWith(relative(process.cwd(), stub ?? "?"))))
    .map(([path]) => path.replace(/^.*node_modules\//, ""))
    .sort();
};

/** The default chain's links after the environment, and the STS / SSO / sign-in clients only they build. */
const CHAIN =
  /node_modules\/(@aws-sdk\/(credential-provider-(?!env\/)[^/]+|nested-clients\/dist-es\/submodules\/(sts|sso|signin)\/)|@smithy\/credential-provider-imds\/)/;

describe("the agent-step and outbound bundles (infra/bundling.ts FUNCTION_STUBS)", () => {
  it("hold no credential-chain link but the environment's; every client's runtimeConfig takes the stub", () => {
    for (const fn of FNS)
      expect(
        inputs(fn).filter((p) => CHAIN.test(p)),
        fn,
      ).toEqual([]);
    const stub = FUNCTION_STUBS["agent-step"].packages["@aws-sdk/credential-provider-node"];
    // Each client these functions build; a new one needs LAMBDA_STUBS' reasoning checked for it.
    expect(importersOf("agent-step", stub)).toEqual(
      ["bedrock-runtime", "dynamodb", "s3", "secrets-manager", "sqs", "ssm"].map(
        (c) => `@aws-sdk/client-${c}/dist-es/runtimeConfig.js`,
      ),
    );
    expect(importersOf("outbound", stub)).toEqual(
      ["dynamodb", "s3", "sesv2", "sqs"].map((c) => `@aws-sdk/client-${c}/dist-es/runtimeConfig.js`),
    );
  });

  it("outbound holds no event-stream code, nor the SSO token provider; only S3's client reaches that stub", () => {
    expect(
      inputs("outbound").filter((p) =>
        /node_modules\/(@smithy\/core\/dist-es\/submodules\/event-streams|@aws-sdk\/(nested-clients|token-providers))\//.test(
          p,
        ),
      ),
    ).toEqual([]);
    expect(importersOf("outbound", FUNCTION_STUBS.outbound.packages["@smithy/core/event-streams"])).toEqual([
      "@aws-sdk/client-s3/dist-es/S3Client.js",
      "@aws-sdk/client-s3/dist-es/runtimeConfig.js",
      "@smithy/core/dist-es/submodules/protocols/HttpProtocol.js",
    ]);
  });

  it("agent-step keeps the real event streams (its Bedrock client builds a codec) and Bedrock's bearer-token provider", () => {
    expect(FUNCTION_STUBS["agent-step"].packages["@smithy/core/event-streams"]).toBeUndefined();
    expect(
      inputs("agent-step").some((p) => /@smithy\/core\/dist-es\/submodules\/event-streams\//.test(p)),
    ).toBe(true);
    // Only the Bedrock client's own token provider, with the SSO-OIDC client it refreshes tokens with.
    const tokens = inputs("agent-step").filter((p) => /@aws-sdk\/(token-providers|nested-clients)\//.test(p));
    expect(tokens.length).toBeGreaterThan(0);
    for (const p of tokens)
      expect(p).toMatch(
        /client-bedrock-runtime\/node_modules\/@aws-sdk\/token-providers\/|nested-clients\/(dist-es\/submodules\/sso-oidc\/|package\.json$)/,
      );
  });
});
