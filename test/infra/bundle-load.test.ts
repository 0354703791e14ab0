import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { DeleteMessageCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { type SesCapture, startSesCapture } from "../../cli/local/ses-capture.ts";
import { buildSesNotification } from "../../cli/local/ses-notification.ts";
import { toSqsEvent } from "../../cli/local/sqs-event.ts";
import { makeClients } from "../../shared/aws/clients.ts";
import { silentLogger } from "../../shared/logger.ts";
import { generateDkimKey, signMessage, zoneRecordFor } from "../../shared/mail/dkim-sign.ts";
import type { Zone } from "../../shared/runtime/zone-resolver.ts";
import { BlobStore } from "../../shared/store/blob-store.ts";
import { SendOutcomeReads } from "../../shared/store/delivery-event-reads.ts";
import { makeStores } from "../../shared/store/stores.ts";
import {
  type RecordedRequest,
  type RecordingServer,
  startRecordingServer,
} from "../helpers/model-servers/recording-server.ts";
import { functionEnv } from "./bundle-env.ts";
import { FIXTURES, ROOT, type ValidationReport } from "./synth.ts";

const run = promisify(execFile);
const CONFIG = join(FIXTURES, "create-mode.config.json");
const FUNCTIONS = {
  verify: "VerifyFunction",
  agentStep: "AgentStepFunction",
  outbound: "OutboundFunction",
  deliveryEvents: "DeliveryEventsRecordFunction",
  webhooks: "WebhooksDeliverFunction",
} as const;

// The real synth (buildApp, which infra/app.ts runs, with esbuild bundling and cdk-nag; synth-app.ts) once for the
// file; the bundles it leaves in the cloud assembly are the ones imported below: CDK's own output.
let outdir: string;
let synthMs: number;
let template: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
let emulators: Emulators;
const assetDirs = {} as Record<keyof typeof FUNCTIONS, string>;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), "postern-cdk-out-"));
  const t0 = Date.now();
  await run(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "test/infra/synth-app.ts"), CONFIG, outdir], {
    cwd: ROOT,
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

/**
 * The emulators' resources with queue URLs a function can send to: fauxqs names its queues by a host that does not
 * resolve; in Lambda the SDK takes the queue URL's host, so the function is given the URLs at the address the
 * emulator listens on.
 */
function localQueues() {
  const sqsHost = new URL(emulators.resources.endpoints?.sqs ?? "").host;
  const local = (url: string) => url.replace(/^http:\/\/[^/]+/, `http://${sqsHost}`);
  const { queues } = emulators.resources;
  return {
    ...emulators.resources,
    queues: {
      verify: local(queues.verify),
      agentStep: local(queues.agentStep),
      outbound: local(queues.outbound),
    },
  };
}

const record = (id: string, body: string) => ({ MessageId: id, ReceiptHandle: `rh-${id}`, Body: body });

/**
 * `mail` signed for sender.example, stored where SES's S3 action puts it, and the intake queue's record of the SES
 * notification about it (as verify receives it through SNS).
 */
async function inboundRecord(
  blobs: BlobStore,
  key: { readonly privateKeyPem: string },
  id: string,
  mail: string,
  agent: string,
) {
  const raw = await signMessage(mail, {
    domain: "sender.example",
    selector: "s1",
    privateKeyPem: key.privateKeyPem,
    signTime: new Date(Date.now() - 60_000),
  });
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
  return record(id, JSON.stringify({ Type: "Notification", Message: JSON.stringify(notification) }));
}
const event = (...records: ReturnType<typeof record>[]): SQSEvent =>
  toSqsEvent(records, "arn:aws:sqs:eu-west-1:111111111111:q", "eu-west-1");

/** Stub calls (infra/bundle-stubs) the last invocation recorded. */
let lastStubCalls: string[] = [];

async function invoke(
  fn: keyof typeof FUNCTIONS,
  events: SQSEvent[],
  zoneRecords: Zone = {},
  resources = emulators.resources,
  extraEnv: NodeJS.ProcessEnv = {},
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
      env: { ...functionEnv(resources, join(dir, "create-mode.config.json"), zone), ...extraEnv },
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

describe("cdk synth (buildApp as infra/app.ts runs it, offline, bundling with the local esbuild)", () => {
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
      records.push(await inboundRecord(blobs, key, `bundle-shape-${i}`, mail, agent));
    }
    const [result] = await invoke("verify", [event(...records)], zone, localQueues());
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

  it("delivery events: SES's bounce, as EventBridge puts it on the queue, is recorded for its agent; junk fails", async () => {
    // The SES Developer Guide's bounce record (test/fixtures/ses-events), wrapped as the EventBridge rule delivers it.
    const bounce = readFileSync(join(ROOT, "test/fixtures/ses-events/bounce.json"), "utf8");
    const wrapped = JSON.stringify({
      version: "0",
      id: "b8c9d0e1-f2a3-4567-bcde-678901234567",
      "detail-type": "Email Bounced",
      source: "aws.ses",
      account: "111111111111",
      time: "2017-08-05T00:41:03Z",
      region: "eu-west-1",
      resources: [],
      detail: JSON.parse(bounce),
    });
    const [empty, mixed] = await invoke("deliveryEvents", [
      event(),
      event(record("d1", wrapped), record("d2", "not json")),
    ]);
    expect(empty).toEqual({ batchItemFailures: [] });
    expect(mixed).toEqual({ batchItemFailures: [{ itemIdentifier: "d2" }] });
    const clients = makeClients(emulators.resources);
    try {
      const recorded = await new SendOutcomeReads({
        dynamo: clients.dynamo,
        tables: emulators.resources.tables,
      }).recent("sender@example.com", 5);
      expect(recorded.map((e) => [e.kind, e.recipients.map((r) => r.address)])).toEqual([
        ["bounce", ["recipient@example.com"]],
      ]);
    } finally {
      clients.s3.destroy();
      clients.dynamo.destroy();
    }
    expect(lastStubCalls).toEqual([]);
  });

  it("webhooks: an event with no endpoint registered is done after the admin read; junk fails (to the DLQ)", async () => {
    const event_ = {
      kind: "event",
      event: {
        id: `evt_${"0".repeat(32)}`,
        type: "run.failed",
        timestamp: "2026-12-01T10:00:00.000Z",
        data: { agent: "helpdesk@agents.example.com", runId: "r1" },
      },
    };
    const [empty, mixed] = await invoke("webhooks", [
      event(),
      event(record("w1", JSON.stringify(event_)), record("w2", "not json")),
    ]);
    expect(empty).toEqual({ batchItemFailures: [] });
    expect(mixed).toEqual({ batchItemFailures: [{ itemIdentifier: "w2" }] });
    expect(lastStubCalls).toEqual([]);
  });

  it("outbound: empty batch → no failures; an unusable request → that record fails", async () => {
    const [empty, bad] = await invoke("outbound", [event(), event(record("x", '{"nope":true}'))]);
    expect(empty).toEqual({ batchItemFailures: [] });
    expect(bad).toEqual({ batchItemFailures: [{ itemIdentifier: "x" }] });
  });
});

describe("the pipeline through CDK's three bundles: no stub is called on any function's real path", () => {
  // infra/bundling.ts FUNCTION_STUBS: every bundle keeps only the environment link of the credential chain, verify
  // and outbound drop the event-stream code. A mail for each kind of model goes verify → agent-step → outbound, each
  // step run by CDK's own bundle, with the three keys Lambda puts in the environment; every AWS client the functions
  // build signs with them (DynamoDB, S3, SQS on the emulators; Bedrock, SSM, Secrets Manager and SESv2 on loopback
  // servers that record the signature), and no invocation records a stub call.
  const LAMBDA_KEYS = {
    AWS_ACCESS_KEY_ID: "ASIALAMBDAROLE",
    AWS_SECRET_ACCESS_KEY: "role-secret",
    AWS_SESSION_TOKEN: "role-session-token",
  };
  let bedrock: RecordingServer;
  let keysAndModels: RecordingServer;
  let ses: SesCapture;
  const captured: { to: string[] }[] = [];

  beforeAll(async () => {
    // Each model answers its run's first round by replying through send_email (what puts a send on outbound's
    // queue), then ends the run with text.
    const reply = { mode: "reply", body: "Thanks, we are on it." };
    // Bedrock Converse over h2c (its client's default handler speaks HTTP/2).
    bedrock = await startRecordingServer(
      (_req, i) => ({
        body: {
          output: {
            message: {
              role: "assistant",
              content: [
                i === 0
                  ? { toolUse: { toolUseId: "tooluse_1", name: "send_email", input: reply } }
                  : { text: "done" },
              ],
            },
          },
          stopReason: i === 0 ? "tool_use" : "end_turn",
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        },
      }),
      { http2: true },
    );
    // SSM and Secrets Manager (awsJson, by X-Amz-Target) for the API keys, and the two HTTP model APIs they unlock.
    const rounds = { openai: 0, anthropic: 0 };
    keysAndModels = await startRecordingServer((req) => {
      const target = String(req.headers["x-amz-target"] ?? "");
      if (target === "AmazonSSM.GetParameter") return { body: { Parameter: { Value: "sk-from-ssm" } } };
      if (target === "secretsmanager.GetSecretValue") return { body: { SecretString: "sk-from-secrets" } };
      const usage = { prompt_tokens: 10, completion_tokens: 5 };
      if (req.path.endsWith("/chat/completions"))
        return rounds.openai++ === 0
          ? {
              body: {
                choices: [
                  {
                    finish_reason: "tool_calls",
                    message: {
                      role: "assistant",
                      content: null,
                      tool_calls: [
                        {
                          id: "call_1",
                          type: "function",
                          function: { name: "send_email", arguments: JSON.stringify(reply) },
                        },
                      ],
                    },
                  },
                ],
                usage,
              },
            }
          : {
              body: {
                choices: [{ finish_reason: "stop", message: { role: "assistant", content: "done" } }],
                usage,
              },
            };
      const first = rounds.anthropic++ === 0;
      return {
        body: {
          content: [
            first
              ? { type: "tool_use", id: "toolu_1", name: "send_email", input: reply }
              : { type: "text", text: "done" },
          ],
          stop_reason: first ? "tool_use" : "end_turn",
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      };
    });
    ses = await startSesCapture({
      outboxDir: join(outdir, "outbox"),
      onCaptured: (m) =>
        captured.push({ to: (m.destination as { ToAddresses?: string[] } | undefined)?.ToAddresses ?? [] }),
    });
  });

  afterAll(async () => {
    await bedrock?.close();
    await keysAndModels?.close();
    await ses?.stop();
  });

  /** Signed with Lambda's keys (SigV4 names the access key; the session token rides along). */
  const signedWithLambdaKeys = (r: RecordedRequest) =>
    String(r.headers.authorization ?? "").includes(`Credential=${LAMBDA_KEYS.AWS_ACCESS_KEY_ID}/`) &&
    r.headers["x-amz-security-token"] === LAMBDA_KEYS.AWS_SESSION_TOKEN;

  it("verify → agent-step (scripted, Bedrock, SSM and Secrets Manager keys) → outbound (SESv2), stubs unused", async () => {
    const clients = makeClients(emulators.resources);
    const stores = makeStores(clients, emulators.resources, silentLogger);
    const { queues } = emulators.resources;
    /** Every message on a queue now (the function's poller in Lambda), deleted as taken. */
    const drain = async (queueUrl: string) => {
      const taken: ReturnType<typeof record>[] = [];
      for (;;) {
        const r = await clients.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        if (!r.Messages?.length) return taken;
        for (const m of r.Messages) {
          taken.push(record(m.MessageId ?? "", m.Body ?? ""));
          await clients.sqs.send(
            new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }),
          );
        }
      }
    };
    // What earlier tests left on the queues is not this test's.
    await drain(queues.agentStep);
    await drain(queues.outbound);

    // One agent per kind of model client agent-step builds (test/infra/fixtures/create-mode.config.json).
    const agents = {
      demo: "scripted@agents.example.com",
      claude: "bedrock@agents.example.com",
      gpt: "ssm-key@agents.example.com",
      direct: "secret-key@agents.example.com",
    };
    for (const [model, address] of Object.entries(agents))
      await stores.admin.putAgent({ address, name: model, model });
    // The shipped config with the two HTTP model APIs at the loopback server (their keys still come from SSM and
    // Secrets Manager) and a script that replies, written beside the bundle as the function reads its config.
    const shipped = JSON.parse(readFileSync(CONFIG, "utf8")) as { models: Record<string, unknown>[] };
    const modelsConfig = join(assetDirs.agentStep, "loopback-models.config.json");
    const script = join(assetDirs.agentStep, "scripts/pipeline-reply.json");
    writeFileSync(
      script,
      JSON.stringify({
        turns: [
          { toolCalls: [{ name: "send_email", input: { mode: "reply", body: "Thanks, we are on it." } }] },
          { text: "done" },
        ],
      }),
    );
    writeFileSync(
      modelsConfig,
      JSON.stringify({
        ...shipped,
        models: shipped.models.map((m) =>
          m.id === "gpt"
            ? { ...m, baseUrl: `${keysAndModels.url}/v1` }
            : m.id === "direct"
              ? { ...m, baseUrl: keysAndModels.url }
              : m.id === "demo"
                ? { ...m, script }
                : m,
        ),
      }),
    );
    const env = {
      ...LAMBDA_KEYS,
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
      AWS_ENDPOINT_URL_SSM: keysAndModels.url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: keysAndModels.url,
      AWS_ENDPOINT_URL_SESV2: ses.endpoint,
    };

    const key = await generateDkimKey({ bits: 2048 });
    const zone = zoneRecordFor("s1", "sender.example", key.dnsTxtValue);
    const blobs = new BlobStore({ s3: clients.s3, bucket: emulators.resources.bucket });
    const records = [];
    for (const [i, agent] of Object.values(agents).entries()) {
      const mail = [
        "From: Alice <alice@sender.example>",
        `To: ${agent}`,
        `Subject: pipeline ${i}`,
        "Date: Sun, 29 Nov 2026 12:00:00 +0000",
        `Message-ID: <pipeline-${i}@sender.example>`,
        "Content-Type: text/plain; charset=utf-8",
        "",
        "Hello, could you answer this?",
        "",
      ].join("\r\n");
      records.push(await inboundRecord(blobs, key, `bundle-pipeline-${i}`, mail, agent));
    }

    const stubCalls: Record<string, string[]> = {};
    const run = async (fn: keyof typeof FUNCTIONS, batch: ReturnType<typeof record>[], extra = {}) => {
      const [result] = await invoke(fn, [event(...batch)], zone, localQueues(), { ...env, ...extra });
      expect(result, `${fn} ${batch.map((r) => r.MessageId).join(",")}`).toEqual({ batchItemFailures: [] });
      stubCalls[fn] = [...(stubCalls[fn] ?? []), ...lastStubCalls];
    };
    await run("verify", records);
    // agent-step takes one message per call (its batch size); a round may enqueue the next.
    let steps = 0;
    for (let round = 0; round < 5; round++) {
      const due = await drain(queues.agentStep);
      if (due.length === 0) break;
      for (const r of due) await run("agentStep", [r], { POSTERN_CONFIG_FILE: modelsConfig });
      steps += due.length;
    }
    expect(steps).toBeGreaterThanOrEqual(Object.keys(agents).length);
    const sends = await drain(queues.outbound);
    for (let i = 0; i < sends.length; i += 5) await run("outbound", sends.slice(i, i + 5));

    expect(stubCalls).toEqual({ verify: [], agentStep: [], outbound: [] });
    // Each model client was built and called, signed with the environment's keys through the stubbed chain.
    const converse = bedrock.requests.filter((r) => r.path.endsWith("/converse"));
    expect(converse.length).toBeGreaterThan(0);
    expect(converse.every(signedWithLambdaKeys)).toBe(true);
    const target = (t: string) => keysAndModels.requests.filter((r) => r.headers["x-amz-target"] === t);
    expect(target("AmazonSSM.GetParameter").length).toBeGreaterThan(0);
    expect(target("secretsmanager.GetSecretValue").length).toBeGreaterThan(0);
    expect(
      [...target("AmazonSSM.GetParameter"), ...target("secretsmanager.GetSecretValue")].every(
        signedWithLambdaKeys,
      ),
    ).toBe(true);
    // and every run's answer went out through outbound's SESv2 client
    expect(captured.filter((m) => m.to.includes("alice@sender.example")).length).toBe(
      Object.keys(agents).length,
    );
    clients.s3.destroy();
    clients.sqs.destroy();
    clients.dynamo.destroy();
    // A fresh Node process per function call through the whole pipeline: about 9 s on an idle machine, but over the
    // 30 s default when the suite's files run side by side on a loaded one.
  }, 120_000);
});
