import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { CONSOLE_ENV } from "../../console/lambda-env.ts";
import { esbuildOptions } from "../../infra/bundling.ts";
import { functionEnv } from "./bundle-env.ts";
import { ROOT } from "./synth.ts";

// The console's Lambda entry bundled as CDK bundles it (infra/bundling.ts), imported in a fresh Node process with
// the environment the construct gives it, and invoked with Lambda function URL events (payload 2.0).

const run = promisify(execFile);
const DOMAIN = "https://postern-test.auth.eu-west-1.amazoncognito.com";
const HOST = "abc123.lambda-url.eu-west-1.on.aws";
const CLIENT_ID_PARAMETER = "/Postern/console/client-id";
const ORIGIN_PARAMETER = "/Postern/console/origin";
let dir: string;
let emulators: Emulators;
let ssm: Server;
const parameterReads: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-console-bundle-"));
  await build(esbuildOptions(join(ROOT, "console/lambda.ts"), join(dir, "index.mjs")));
  emulators = await startEmulators();
  // SSM's GetParameter (JSON 1.1 protocol): the app client id the construct stores for the function.
  ssm = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const name = JSON.parse(body).Name as string;
      parameterReads.push(name);
      const value = { [CLIENT_ID_PARAMETER]: "client-1", [ORIGIN_PARAMETER]: `https://${HOST}/` }[name];
      res.writeHead(value ? 200 : 400, { "content-type": "application/x-amz-json-1.1" });
      res.end(
        JSON.stringify(
          value
            ? { Parameter: { Name: name, Value: value, Type: "String" } }
            : { __type: "ParameterNotFound", message: name },
        ),
      );
    });
  });
  await new Promise<void>((r) => ssm.listen(0, "127.0.0.1", () => r()));
}, 120_000);
afterAll(async () => {
  await emulators?.stop();
  ssm?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const urlEvent = (path: string, headers: Record<string, string> = {}) => ({
  version: "2.0",
  routeKey: "$default",
  rawPath: path,
  rawQueryString: "",
  headers: { host: HOST, "user-agent": "test", ...headers },
  requestContext: {
    accountId: "anonymous",
    apiId: "abc123",
    domainName: HOST,
    domainPrefix: "abc123",
    http: { method: "GET", path, protocol: "HTTP/1.1", sourceIp: "192.0.2.1", userAgent: "test" },
    requestId: "r1",
    routeKey: "$default",
    stage: "$default",
    time: "30/Nov/2026:12:00:00 +0000",
    timeEpoch: 1_796_040_000_000,
  },
  isBase64Encoded: false,
});

describe("the console's Lambda bundle", () => {
  it("loads, reads its client id and origin once, and serves function URL requests: unsigned → sign-in → Cognito", async () => {
    const config = join(dir, "postern.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        domains: ["agents.example.com"],
        models: [{ id: "m", provider: "bedrock", modelId: "amazon.nova-pro-v1:0", egress: "internal" }],
      }),
    );
    const resultFile = join(dir, "result.json");
    await run(
      process.execPath,
      [
        join(ROOT, "test/infra/run-handler.mjs"),
        join(dir, "index.mjs"),
        JSON.stringify([
          urlEvent("/"),
          urlEvent("/auth/sign-in"),
          urlEvent("/static/console.css"),
          // A Host that is not the function URL's (RFC 9110 §15.5.20): the origin is the stored one, not this.
          urlEvent("/", { host: "evil.example" }),
        ]),
        resultFile,
      ],
      {
        cwd: dir,
        env: {
          ...functionEnv(emulators.resources, config, join(dir, "zone.json")),
          AWS_ENDPOINT_URL_SSM: `http://127.0.0.1:${(ssm.address() as AddressInfo).port}`,
          [CONSOLE_ENV.userPoolId]: "eu-west-1_TestPool1",
          [CONSOLE_ENV.clientIdParameter]: CLIENT_ID_PARAMETER,
          [CONSOLE_ENV.originParameter]: ORIGIN_PARAMETER,
          [CONSOLE_ENV.authDomain]: DOMAIN,
        },
      },
    );
    const { initMs, results } = JSON.parse(readFileSync(resultFile, "utf8")) as {
      initMs: number;
      results: { statusCode: number; headers: Record<string, string>; cookies?: string[]; body: string }[];
    };
    const [home, signIn, css, misdirected] = results;
    expect(home?.statusCode).toBe(302);
    expect(home?.headers.location).toBe("/auth/sign-in");
    expect(home?.headers["content-security-policy"]).toContain("script-src 'none'");
    expect(signIn?.statusCode).toBe(302);
    const to = new URL(signIn?.headers.location ?? "");
    expect(`${to.origin}${to.pathname}`).toBe(`${DOMAIN}/oauth2/authorize`);
    expect(to.searchParams.get("client_id")).toBe("client-1");
    expect(to.searchParams.get("redirect_uri")).toBe(`https://${HOST}/auth/callback`);
    expect(signIn?.cookies?.some((c) => c.startsWith("__Host-postern-signin="))).toBe(true);
    expect(css?.statusCode).toBe(200);
    expect(misdirected?.statusCode).toBe(421);
    expect([...parameterReads].sort()).toEqual([CLIENT_ID_PARAMETER, ORIGIN_PARAMETER]);
    const kb = statSync(join(dir, "index.mjs")).size / 1024;
    console.log(`console bundle ${kb.toFixed(0)} KB, module init ${initMs.toFixed(0)} ms`);
  }, 60_000);
});
