import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { buildSesNotification } from "../../cli/local/ses-notification.ts";
import { toSqsEvent } from "../../cli/local/sqs-event.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import { silentLogger } from "../../shared/logger.ts";
import { generateDkimKey, signMessage, zoneRecordFor } from "../../shared/mail/dkim-sign.ts";
import type { Zone } from "../../shared/runtime/zone-resolver.ts";
import { BlobStore } from "../../shared/store/blob-store.ts";
import { makeStores } from "../../shared/store/stores.ts";
import { functionEnv } from "./bundle-env.ts";
import { FIXTURES, ROOT, type ValidationReport } from "./synth.ts";

const run = promisify(execFile);
const CONFIG = join(FIXTURES, "create-mode.config.json");
const FUNCTIONS = {
  verify: "VerifyFunction",
  agentStep: "AgentStepFunction",
  outbound: "OutboundFunction",
} as const;

// The real `cdk synth` path (infra/app.ts with esbuild bundling and cdk-nag) once for the file; the bundles it
// leaves in the cloud assembly are the ones imported below, so "the same way CDK does" is literally CDK's output.
let outdir: string;
let synthMs: number;
let template: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
let emulators: Emulators;
const assetDirs = {} as Record<keyof typeof FUNCTIONS, string>;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), "postern-cdk-out-"));
  const t0 = Date.now();
  await run(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "infra/app.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ config: CONFIG }),
      CDK_DEFAULT_ACCOUNT: "111111111111",
      CDK_DEFAULT_REGION: "eu-west-1",
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  synthMs = Date.now() - t0;
  template = JSON.parse(readFileSync(join(outdir, "Postern.template.json"), "utf8"));
  for (const [key, prefix] of Object.entries(FUNCTIONS) as [keyof typeof FUNCTIONS, string][]) {
    const fn = Object.entries(template.Resources).find(
      ([id, r]) => r.Type === "AWS::Lambda::Function" && id.startsWith(prefix),
    );
    if (!fn) throw new Error(`no ${prefix} in the template`);
    const s3Key = (fn[1].Properties.Code as { S3Key: string }).S3Key;
    assetDirs[key] = join(outdir, `asset.${s3Key.replace(/\.zip$/, "")}`);
  }
  emulators = await startEmulators();
}, 600_000);

afterAll(async () => {
  await emulators?.stop();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

const record = (id: string, body: string) => ({ MessageId: id, ReceiptHandle: `rh-${id}`, Body: body });
const event = (...records: ReturnType<typeof record>[]): SQSEvent =>
  toSqsEvent(records, "arn:aws:sqs:eu-west-1:111111111111:q", "eu-west-1");

/** Stub calls (infra/bundle-stubs) the last invocation recorded. */
let lastStubCalls: string[] = [];

async function invoke(
  fn: keyof typeof FUNCTIONS,
  events: SQSEvent[],
  zoneRecords: Zone = {},
  resources = emulators.resources,
): Promise<SQSBatchResponse[]> {
  const dir = assetDirs[fn];
  const zone = join(outdir, "zone.json");
  writeFileSync(zone, JSON.stringify(zoneRecords));
  const resultFile = join(outdir, `${fn}-result.json`);
  const { stdout, stderr } = await run(
    process.execPath,
    [join(ROOT, "test/infra/run-handler.mjs"), join(dir, "index.mjs"), JSON.stringify(events), resultFile],
    {
      cwd: dir,
      env: functionEnv(resources, join(dir, "create-mode.config.json"), zone),
    },
  );
  // DEBUG_BUNDLE_LOAD=1 shows the function's own log lines
  if (process.env.DEBUG_BUNDLE_LOAD) console.info(stdout, stderr);
  const out = JSON.parse(readFileSync(resultFile, "utf8")) as {
    results: SQSBatchResponse[];
    stubCalls: string[];
  };
  lastStubCalls = out.stubCalls;
  return out.results;
}

describe("cdk synth (infra/app.ts, offline, bundling with the local esbuild)", () => {
  it("synthesises with cdk-nag clean, create mode included", () => {
    const report = JSON.parse(
      readFileSync(join(outdir, "validation-report.json"), "utf8"),
    ) as ValidationReport;
    const nag = report.pluginReports.filter((r) => r.pluginName === "AwsSolutions");
    expect(nag.flatMap((r) => r.violations.map((v) => v.ruleName))).toEqual([]);
    expect(synthMs).toBeGreaterThan(0);
    console.info(`full synth with bundling: ${synthMs} ms`);
  });

  it("create mode: Postern's rule set, activated by a custom resource after its rules exist", () => {
    const resources = Object.entries(template.Resources);
    expect(resources.filter(([, r]) => r.Type === "AWS::SES::ReceiptRuleSet")).toHaveLength(1);
    const activation = resources.find(([, r]) => r.Type === "AWS::CloudFormation::CustomResource");
    expect(activation?.[1].Properties.RuleSetName).toBe("postern");
    // Its onEvent (infra/custom-resources/active-rule-set.ts) is bundled like the pipeline functions and exports
    // the handler the Provider calls.
    const onEvent = resources.find(
      ([id, r]) => r.Type === "AWS::Lambda::Function" && id.startsWith("IntakeActivateRuleSetFunction"),
    );
    if (!onEvent) throw new Error("no onEvent function for the rule-set activation");
    const key = (onEvent[1].Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, "");
    const bundle = readFileSync(join(outdir, `asset.${key}`, "index.mjs"), "utf8");
    expect(bundle).toMatch(/export\s*\{[^}]*\bonEvent\b/);
    const deps = (template.Resources[activation?.[0] ?? ""] as unknown as { DependsOn: string[] }).DependsOn;
    expect(deps.filter((d) => d.startsWith("IntakeRule"))).toHaveLength(2);
  });

  it("each bundle holds index.mjs, the config and the scripted model's script", () => {
    for (const dir of Object.values(assetDirs)) {
      expect(statSync(join(dir, "index.mjs")).size).toBeGreaterThan(100_000);
      expect(readFileSync(join(dir, "create-mode.config.json"), "utf8")).toBe(readFileSync(CONFIG, "utf8"));
      expect(existsSync(join(dir, "scripts/demo.json"))).toBe(true);
    }
  });
});

describe("each bundle loads in a fresh process and runs its handler against the local emulators", () => {
  it("verify: empty batch → no failures; an unusable notification → that record fails (to the DLQ)", async () => {
    const [empty, bad] = await invoke("verify", [event(), event(record("m1", "not json"))]);
    expect(empty).toEqual({ batchItemFailures: [] });
    expect(bad).toEqual({ batchItemFailures: [{ itemIdentifier: "m1" }] });
  });

  it("verify: signed mail of each shape is proven, parsed, stored and handed on (the bundle's stubs stay unused)", async () => {
    // infra/bundling.ts VERIFY_STUBS leave code out of this bundle; test/infra/verify-bundle.test.ts runs the
    // corpora through the same build. Here CDK's own bundle runs the whole verify path on the emulators.
    const agent = "helpdesk@agents.example.com";
    const clients = makeClients(emulators.resources);
    const stores = makeStores(clients, emulators.resources, silentLogger);
    await stores.admin.putAgent({ address: agent, name: "Help", model: "demo" });
    const key = await generateDkimKey({ bits: 2048 });
    const zone = zoneRecordFor("s1", "sender.example", key.dnsTxtValue);
    const head = (n: number, contentType: string) =>
      [
        "From: Alice <alice@sender.example>",
        `To: ${agent}`,
        `Subject: shape ${n}`,
        "Date: Sun, 29 Nov 2026 12:00:00 +0000",
        `Message-ID: <shape-${n}@sender.example>`,
        "MIME-Version: 1.0",
        `Content-Type: ${contentType}`,
        "",
        "",
      ].join("\r\n");
    const mails = [
      `${head(1, "text/plain; charset=utf-8")}Hello,\r\nthe numbers are attached.\r\n`,
      `${head(2, "text/html; charset=utf-8")}<p>APPROVE K7Q2M9XT4Z</p><blockquote>card</blockquote>\r\n`,
      `${head(3, 'multipart/mixed; boundary="b"')}--b\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=E9\r\n--b\r\nContent-Type: application/pdf; name="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.alloc(3000, 7).toString("base64")}\r\n--b--\r\n`,
    ];
    const blobs = new BlobStore({ s3: clients.s3, bucket: emulators.resources.bucket });
    const records = [];
    for (const [i, mail] of mails.entries()) {
      const raw = await signMessage(mail, {
        domain: "sender.example",
        selector: "s1",
        privateKeyPem: key.privateKeyPem,
        signTime: new Date(Date.now() - 60_000),
      });
      const id = `bundle-shape-${i}`;
      await blobs.put(`inbound/${id}`, raw);
      const notification = buildSesNotification({
        messageId: id,
        receivedAt: new Date(),
        processingTimeMillis: 1,
        envelope: { mailFrom: "alice@sender.example", rcptTo: [agent] },
        raw,
        topicArn: "arn:aws:sns:eu-west-1:111111111111:intake",
        bucketName: emulators.resources.bucket,
        objectKeyPrefix: "inbound/",
      });
      records.push(
        record(id, JSON.stringify({ Type: "Notification", Message: JSON.stringify(notification) })),
      );
    }
    // fauxqs names its queues by a host that does not resolve; in Lambda the SDK takes the queue URL's host, so
    // the function is given the URLs at the address the emulator listens on.
    const sqsHost = new URL(emulators.resources.endpoints?.sqs ?? "").host;
    const local = (url: string) => url.replace(/^http:\/\/[^/]+/, `http://${sqsHost}`);
    const { queues } = emulators.resources;
    const [result] = await invoke("verify", [event(...records)], zone, {
      ...emulators.resources,
      queues: {
        verify: local(queues.verify),
        agentStep: local(queues.agentStep),
        outbound: local(queues.outbound),
      },
    });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(lastStubCalls).toEqual([]);
    for (const [i] of mails.entries()) {
      const decision = await stores.inbound.get(`bundle-shape-${i}`, agent);
      expect(decision, `mail ${i}`).toMatchObject({ status: "done", verdict: "accept", reason: "accepted" });
      expect(decision?.messageId, `mail ${i}`).toBeTruthy();
    }
    clients.s3.destroy();
    clients.sqs.destroy();
    clients.dynamo.destroy();
  });

  it("agent-step: an unknown run is skipped after a DynamoDB read (bundled SDK ↔ emulator); garbage fails", async () => {
    const [empty, mixed] = await invoke("agentStep", [
      event(),
      event(record("ok", JSON.stringify({ runId: "no-such-run", round: 1 })), record("bad", "{}")),
    ]);
    expect(empty).toEqual({ batchItemFailures: [] });
    expect(mixed).toEqual({ batchItemFailures: [{ itemIdentifier: "bad" }] });
  });

  it("outbound: empty batch → no failures; an unusable request → that record fails", async () => {
    const [empty, bad] = await invoke("outbound", [event(), event(record("x", '{"nope":true}'))]);
    expect(empty).toEqual({ batchItemFailures: [] });
    expect(bad).toEqual({ batchItemFailures: [{ itemIdentifier: "x" }] });
  });
});
