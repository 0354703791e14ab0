import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { localSecretsFile } from "../../cli/local/secrets-file.ts";
import {
  dynamoWebhookState,
  fileSecretStore,
  secretManagerStore,
  WEBHOOK_EVENT_TYPES,
} from "../../shared/webhooks/index.ts";
import { newSecret } from "../../shared/webhooks/signing.ts";
// IAM, proven call by call. The real pipeline runs in the local stack with every AWS SDK command
// recorded per function; each call is turned into what AWS authorizes for it (test/helpers/aws-contract) and
// evaluated with AWS's policy logic (iam-simulate) against that function's policies as the synthesized template
// deploys them. Every call must be allowed; a table of calls that must never be allowed is checked the same way.

import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { SSMClient } from "@aws-sdk/client-ssm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import { UNVERIFIED_DOMAIN } from "../../cli/local/ses-capture.ts";
import type { CallIssuer } from "../../cli/local/stack.ts";
import { type ObservedCall, observeCalls } from "../../shared/aws/observe.ts";
import { loadConfigFile } from "../../shared/config/load.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { TABLE_KEYS } from "../../shared/config/tables.ts";
import { createModel } from "../../shared/model/factory.ts";
import { awsSecretSource } from "../../shared/secrets/aws-source.ts";
import { awsSecretsStore } from "../../shared/secrets/aws-store.ts";
import { PlanStore } from "../../shared/store/plan-store.ts";
import { makeStores } from "../../shared/store/stores.ts";
import { builtinTools } from "../../shared/tool-framework/builtin/index.ts";
import { ToolRegistry } from "../../shared/tool-framework/registry.ts";
import { demoOrderBackend, orderTools } from "../../tools/orders.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { DeployedTemplate } from "../helpers/aws-contract/deployed-template.ts";
import { type DeployedNames, type IamRequest, iamRequests } from "../helpers/aws-contract/iam-requests.ts";
import { simulate, type Verdict } from "../helpers/aws-contract/simulate.ts";
import { startPipelineStack, waitFor } from "../helpers/pipeline-stack.ts";
import { ENV, FIXTURES, logicalId, type Synthesized, synth } from "./synth.ts";

type Fn = "verify" | "agent-step" | "outbound" | "webhooks";
const FUNCTIONS: readonly Fn[] = ["verify", "agent-step", "outbound", "webhooks"];
const CONFIG = join(FIXTURES, "iam.config.json");
const AGENT = "shop@agents.example.com";
const APPROVER = "boss@approvers.example";
const GONE = "gone@agents.example.com";

let s: Synthesized;
let deployed: DeployedTemplate;
let names: DeployedNames;
const calls: { issuer: CallIssuer; call: ObservedCall }[] = [];
let local: Resources;

/** The role a function's calls are made with; the stack's SQS polling is Lambda's event source, as the consumer. */
function roleOf(fn: Fn): string {
  const f = s.stack.functions;
  return logicalId(
    s.stack,
    { verify: f.verify, "agent-step": f.agentStep, outbound: f.outbound, webhooks: s.stack.webhooks.fn }[fn]
      .role,
  );
}

function principal(fn: Fn) {
  const role = roleOf(fn);
  return { arn: deployed.getAtt(role, "Arn"), identityPolicies: deployed.identityPolicies(role) };
}

/** The resource policy governing an ARN, when the stack gives the resource one. */
function resourcePolicyFor(arn: string) {
  const owners: [string, string][] = [
    ["AWS::S3::Bucket", "Arn"],
    ["AWS::SQS::Queue", "Arn"],
    ["AWS::SNS::Topic", "Arn"],
    ["AWS::KMS::Key", "Arn"],
  ];
  for (const [type, attr] of owners)
    for (const id of deployed.ofType(type)) {
      const base = deployed.getAtt(id, attr);
      if (arn === base || arn.startsWith(`${base}/`)) return deployed.resourcePolicy(id);
    }
  return undefined;
}

async function verdict(fn: Fn, request: IamRequest): Promise<Verdict> {
  return simulate(principal(fn), request, {
    resourceAccount: ENV.account,
    resourcePolicy: resourcePolicyFor(request.resource),
  });
}

/** Which function a call is charged to: its issuer, or for the stack's queue polling, the queue's consumer. */
function chargedTo(issuer: CallIssuer, call: ObservedCall): Fn | null {
  if (issuer !== "stack") return issuer;
  if (call.service !== "SQS") return null; // the SES intake's S3 write: service-principals.test.ts
  const url = String(call.input.QueueUrl);
  if (url === local.queues.verify) return "verify";
  if (url === local.queues.agentStep) return "agent-step";
  if (url === local.queues.outbound) return "outbound";
  if (url === local.queues.events) return "webhooks";
  return null;
}

beforeAll(async () => {
  s = synth(CONFIG);
  deployed = new DeployedTemplate(s.stack.resolve(s.template.toJSON()) as Record<string, unknown>, {
    partition: "aws",
    account: ENV.account,
    region: ENV.region,
    stackName: "Postern",
  });

  const backend = demoOrderBackend();
  // A webhook receiver on a free loopback port, so the events worker's delivery path runs too.
  const receiver = createServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const { stack, dir } = await startPipelineStack({
    webhookLoopback: true,
    config: {
      domains: loadConfigFile(CONFIG).config.domains,
      models: [{ id: "demo", provider: "scripted", script: "script.json", egress: "internal" }],
    },
    script: JSON.parse(readFileSync(join(FIXTURES, "scripts/iam-pipeline.json"), "utf8")),
    registry: new ToolRegistry([...builtinTools(), ...orderTools(backend)]),
    observe: (issuer) => (call) => calls.push({ issuer, call }),
  });
  local = stack.resources;
  try {
    const stores = makeStores(stack.clients, stack.resources, recordingLogger());
    await stores.admin.putAgent({ address: AGENT, name: "Shop", model: "demo" });
    await stores.admin.putToolkit({ id: "refunds", tools: ["issue_refund"], agents: [AGENT] });
    await stores.admin.putApprover({ toolkit: "refunds", address: APPROVER });
    await fileSecretStore(localSecretsFile(stack.dir)).write("crm", { current: newSecret() });
    await stores.admin.putWebhook({ id: "crm", url: hookUrl, events: [...WEBHOOK_EVENT_TYPES] });
    const plans = new PlanStore({
      dynamo: stack.clients.dynamo,
      tables: stack.resources.tables,
      state: stores.state,
    });
    const send = async (from: string, to: string[], body: string, subject = "Refund please") => {
      const sent = await devSend({
        dir,
        zoneFile: stack.zoneFile,
        from,
        to,
        subject,
        body,
        port: stack.smtp.port,
      });
      if (!sent.ok) throw new Error(sent.reason);
    };
    // A customer asks (reply, refund proposed, card), an unknown address is refused with a notice, the approver
    // applies the plan, and the agent answers again: every function's every path that touches AWS.
    await send(
      "carol@customer.example",
      [AGENT, "nobody@agents.example.com"],
      // Over 2 KiB, so its body goes to S3 (shorter ones stay on the message item): verify's PutObject and
      // agent-step's GetObject under mail/ are exercised.
      `Order A-1002 arrived broken.\n${"The box was crushed and the contents are scratched.\n".repeat(50)}`,
    );
    // The test reads the code as an approver would, from the card in the outbox (not through a function).
    const code = await waitFor("the confirm card", () => {
      for (const f of existsSync(stack.outboxDir) ? readdirSync(stack.outboxDir) : []) {
        const m = /^code: (\S{4}) (\S{4}) (\S{2})$/m.exec(readFileSync(join(stack.outboxDir, f), "latin1"));
        if (m) return m.slice(1).join("");
      }
      return undefined;
    });
    await send(APPROVER, [AGENT], `APPROVE ${code}`, "Re: Approval needed");
    await waitFor("the plan to be applied", async () => {
      const loc = await plans.runForCode(code);
      return loc && (await plans.get(loc.runId))?.state === "applied" ? true : undefined;
    });
    await waitFor("the second reply", async () =>
      calls.filter((c) => c.issuer === "outbound" && c.call.service === "SESv2").length >= 4
        ? true
        : undefined,
    );
    // The customer answers the agent's first reply: threading by In-Reply-To/References, and thread history.
    const reply = await waitFor("the agent's reply", () => {
      for (const f of readdirSync(stack.outboxDir).filter((n) => n.endsWith(".eml"))) {
        const text = readFileSync(join(stack.outboxDir, f), "latin1");
        if (text.includes("We are looking into it.")) return /^Message-ID: (\S+)/m.exec(text)?.[1];
      }
      return undefined;
    });
    const sends = () => calls.filter((c) => c.issuer === "outbound" && c.call.service === "SESv2").length;
    const before = sends();
    const raw = Buffer.from(
      [
        "From: carol@customer.example",
        `To: ${AGENT}`,
        "Subject: Re: Refund please",
        "Message-ID: <again@customer.example>",
        `In-Reply-To: ${reply}`,
        `References: ${reply}`,
        "",
        "Thanks, and the other order?",
        "",
      ].join("\r\n"),
    );
    const again = await devSend({
      dir,
      zoneFile: stack.zoneFile,
      from: "carol@customer.example",
      to: [AGENT],
      raw,
      port: stack.smtp.port,
    });
    if (!again.ok) throw new Error(again.reason);
    await waitFor("the answer in the thread", async () => (sends() > before ? true : undefined));
    // G19: a run that fails (its agent's model is not in the catalog) is reported by agent-step, and its notice,
    // to a recipient SES refuses (the local capture's sandbox domain), is reported by outbound on the run.
    await stores.admin.putAgent({ address: GONE, name: "Gone", model: "not-in-catalog" });
    await send(`dave@${UNVERIFIED_DOMAIN}`, [GONE], "Hello?", "Anyone there");
    await waitFor("the refused notice's failure", async () => {
      const failures = await stores.failures.listRecent({ now: new Date(), days: 1 });
      return failures.some((f) => f.class === "notice-undelivered") ? true : undefined;
    });
    await waitFor("a webhook delivery", async () =>
      (
        await dynamoWebhookState({ dynamo: stack.clients.dynamo, tables: stack.resources.tables }).log.recent(
          "crm",
          1,
        )
      ).length > 0
        ? true
        : undefined,
    );
  } finally {
    await stack.stop();
    await new Promise<void>((r) => receiver.close(() => r()));
  }

  // The model and key reads agent-step makes in AWS (Bedrock, Secrets Manager, SSM), recorded from the real
  // adapters: the calls fail (nothing listens), which is fine, the command is what IAM sees.
  const observe = (call: ObservedCall) => calls.push({ issuer: "agent-step", call });
  const offline = {
    region: ENV.region,
    endpoint: "http://127.0.0.1:9",
    maxAttempts: 1,
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
  };
  const secrets = awsSecretSource({
    secretsManager: observeCalls(new SecretsManagerClient(offline), observe),
    ssm: observeCalls(new SSMClient(offline), observe),
  });
  // The events worker's secret read in AWS (locally the secrets file stands in), recorded from the real adapter.
  await secretManagerStore(
    awsSecretsStore({
      client: observeCalls(new SecretsManagerClient(offline), (call) =>
        calls.push({ issuer: "webhooks", call }),
      ),
    }),
  )
    .read("crm")
    .catch(() => undefined);
  const catalog = loadConfigFile(CONFIG);
  for (const entry of catalog.config.models) {
    if (entry.provider === "scripted") continue;
    const model = createModel(entry, {
      baseDir: catalog.baseDir,
      secrets,
      bedrockClient: observeCalls(new BedrockRuntimeClient(offline), observe),
      retry: { maxAttempts: 1 },
      timeoutMs: 2000,
    });
    await model.generate({
      system: "s",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [],
      maxTokens: 16,
    });
  }

  names = {
    partition: "aws",
    region: ENV.region,
    account: ENV.account,
    tableArn: (name) => {
      const key = TABLE_KEYS.find((k) => local.tables[k] === name);
      if (!key) throw new Error(`unknown table ${name}`);
      return deployed.getAtt(logicalId(s.stack, s.stack.tables.tables[key]), "Arn");
    },
    bucket: (name) => {
      if (name !== local.bucket) throw new Error(`unknown bucket ${name}`);
      return deployed.physicalName(logicalId(s.stack, s.stack.store.bucket));
    },
    queueArn: (url) => {
      const events = s.stack.webhooks.queue;
      if (url === local.queues.events) return deployed.getAtt(logicalId(s.stack, events.queue), "Arn");
      if (url === local.queues.eventsDeadLetter)
        return deployed.getAtt(logicalId(s.stack, events.deadLetterQueue), "Arn");
      const key = (["verify", "agentStep", "outbound"] as const).find((k) => local.queues[k] === url);
      if (!key) throw new Error(`unknown queue ${url}`);
      return deployed.getAtt(logicalId(s.stack, s.stack.queues[key].queue), "Arn");
    },
    configurationSet: "postern",
    profileRegions: (prefix) =>
      ({ us: ["us-east-1", "us-east-2", "us-west-2"], eu: ["eu-west-1", "eu-central-1", "eu-west-3"] })[
        prefix
      ] ?? [ENV.region],
    secretArn: (name) => `arn:aws:secretsmanager:${ENV.region}:${ENV.account}:secret:${name}-AbCdEf`,
    sandbox: false,
  };
}, 300_000);

afterAll(() => rmSync(s?.outdir ?? "/nonexistent", { recursive: true, force: true }));

describe("every AWS call each function makes is allowed by its deployed policies", () => {
  it.each(FUNCTIONS)("%s", async (fn) => {
    const mine = calls.filter((c) => chargedTo(c.issuer, c.call) === fn);
    expect(mine.length).toBeGreaterThan(0);
    const denied: string[] = [];
    const seen = new Set<string>();
    for (const { call } of mine)
      for (const req of iamRequests(call, names)) {
        const key = `${req.action} ${req.resource} ${JSON.stringify(req.context)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const v = await verdict(fn, req);
        if (v !== "Allowed")
          denied.push(
            `${call.service}:${call.operation} → ${req.action} ${req.resource} ${JSON.stringify(req.context)}: ${v}`,
          );
      }
    expect(denied).toEqual([]);
  });

  it("the recorded calls cover every service each function is granted", () => {
    const services = (fn: Fn) =>
      new Set(calls.filter((c) => chargedTo(c.issuer, c.call) === fn).map((c) => c.call.service));
    expect([...services("verify")].sort()).toEqual(["DynamoDB", "S3", "SQS"]);
    expect([...services("agent-step")].sort()).toEqual([
      "BedrockRuntime",
      "DynamoDB",
      "S3",
      "SQS",
      "SSM",
      "SecretsManager",
    ]);
    expect([...services("outbound")].sort()).toEqual(["DynamoDB", "S3", "SESv2", "SQS"]);
    expect([...services("webhooks")].sort()).toEqual(["DynamoDB", "SQS", "SecretsManager"]);
  });
});

describe("granted but never exercised", () => {
  // Each grant a function's policies hold, as (action, resource) pairs, that no recorded call needs, with the reason
  // it stays. A new grant that nothing uses, a grant on one resource more than the calls name, or a path that stops
  // using one, fails here and has to be justified or removed.
  const runtimeLogs = "the Lambda runtime writes the function's own log group (not an SDK call of ours)";
  const esm =
    "granted by CDK's SqsEventSource for Lambda's event source mapping (AWS's list for SQS triggers); the local pollers stand in with Receive/Delete/GetQueueAttributes only";
  const common = (fn: string, queue: string) => ({
    [`logs:CreateLogStream log-group:${fn}`]: runtimeLogs,
    [`logs:PutLogEvents log-group:${fn}`]: runtimeLogs,
    [`sqs:ChangeMessageVisibility queue:${queue}`]: esm,
    [`sqs:GetQueueUrl queue:${queue}`]: esm,
  });
  const UNUSED: Record<Fn, Record<string, string>> = {
    verify: {
      ...common("Verify", "verify"),
      "dynamodb:GetItem table/inbound":
        "a redelivered mail whose claim another delivery holds reads that claim (inbound-repo claim); this scenario has no redelivery",
      "s3:PutObject bucket/files/*": "attachments of accepted mail; this scenario's mail has none",
    },
    "agent-step": {
      ...common("AgentStep", "agentStep"),
      "dynamodb:Query table/messages":
        "an agent's whole mailbox, for a toolkit widened to the archive (G12, shared/agent/mailbox/mailbox.ts listByAgent); this scenario reads threads only",
      "s3:GetObject bucket/files/*":
        "attachments and agent files the mailbox tools read (shared/agent/mailbox/mailbox.ts); this scenario has none",
      "s3:PutObject bucket/files/*":
        "files an agent's tools create (shared/agent/mailbox/mailbox.ts); none here",
      "secretsmanager:GetSecretValue arn:aws:secretsmanager:eu-west-1:111111111111:secret:postern/mcp/*":
        "an MCP server's bearer token or client secret (shared/mcp/open-session.ts); this scenario registers no server",
    },
    outbound: {
      ...common("Outbound", "outbound"),
      "s3:GetObject bucket/files/*":
        "files/ attachments a send carries (send_email attachmentIds); this scenario attaches none",
      "ses:SendEmail identity/*":
        "SESv2 SendEmail with simple content is authorised as ses:SendEmail; Postern sends raw (ses:SendRawEmail) only, and keeps both as CDK's EmailIdentity.grantSendEmail does",
      "ses:SendEmail configuration-set/postern": "as ses:SendEmail on identity/*",
    },
    webhooks: {
      ...common("WebhooksDeliver", "events"),
      "sqs:SendMessage queue:eventsDeadLetter":
        "an event whose retries are spent goes to the DLQ by the worker's hand (shared/webhooks/sqs-handler.ts); every delivery here succeeds",
    },
  };
  it.each(FUNCTIONS)("%s", (fn) => {
    const granted = principal(fn).identityPolicies.flatMap((p) =>
      p.policy.Statement.filter((st) => st.Effect === "Allow").flatMap((st) =>
        ([st.Action].flat() as string[]).flatMap((action) =>
          ([st.Resource].flat() as string[]).map((resource) => ({ action, resource })),
        ),
      ),
    );
    const used = calls
      .filter((c) => chargedTo(c.issuer, c.call) === fn)
      .flatMap((c) => iamRequests(c.call, names));
    const unused = granted
      .filter((g) => !used.some((r) => r.action === g.action && arnMatches(g.resource, r.resource)))
      .map((g) => `${g.action} ${label(g.resource)}`);

    expect([...new Set(unused)].sort()).toEqual(Object.keys(UNUSED[fn]).sort());
  });
});

/** IAM's ARN matching: `*` any run of characters, `?` one (IAM User Guide, "IAM JSON policy elements: Resource"). */
function arnMatches(pattern: string, arn: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replaceAll("*", ".*")
    .replaceAll("?", ".");
  return new RegExp(`^${re}$`).test(arn);
}

/** A granted resource as the UNUSED table names it: tables, queues, the bucket and log groups by their role. */
function label(arn: string): string {
  for (const k of TABLE_KEYS) {
    const table = names.tableArn(local.tables[k]);
    if (arn === table) return `table/${k}`;
    if (arn.startsWith(`${table}/`)) return `table/${k}${arn.slice(table.length)}`;
  }
  for (const k of ["verify", "agentStep", "outbound", "events", "eventsDeadLetter"] as const)
    if (arn === names.queueArn(local.queues[k] ?? "")) return `queue:${k}`;
  const bucket = `arn:aws:s3:::${names.bucket(local.bucket)}`;
  if (arn.startsWith(bucket)) return `bucket${arn.slice(bucket.length)}`;
  const logGroup = /:log-group:Postern-(\w+?)Logs[0-9A-F]{8}/.exec(arn);
  if (logGroup) return `log-group:${logGroup[1]}`;
  const ses = /:ses:[^:]+:\d+:(.+)$/.exec(arn);
  if (ses) return String(ses[1]);
  return arn;
}

describe("in the SES sandbox", () => {
  it("outbound's sends are also allowed on each recipient's verified identity", async () => {
    const sandbox = { ...names, sandbox: true };
    for (const { call } of calls.filter((c) => c.issuer === "outbound" && c.call.service === "SESv2"))
      for (const req of iamRequests(call, sandbox))
        expect(`${req.resource} ${await verdict("outbound", req)}`).toMatch(/Allowed$/);
  });
});

describe("calls that must never be allowed", () => {
  const identity = (d: string) => `arn:aws:ses:${ENV.region}:${ENV.account}:identity/${d}`;
  const object = (key: string) => `arn:aws:s3:::${names.bucket(local.bucket)}/${key}`;
  const send = (from: string, d = from.slice(from.indexOf("@") + 1)): IamRequest[] =>
    ["ses:SendRawEmail", "ses:SendEmail"].map((action) => ({
      action,
      resource: identity(d),
      context: { "ses:FromAddress": from, "ses:ApiVersion": "2" },
    }));
  const invoke = (resource: string): IamRequest => ({ action: "bedrock:InvokeModel", resource, context: {} });
  const profile = `arn:aws:bedrock:${ENV.region}:${ENV.account}:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0`;

  const table: [Fn, string, () => IamRequest[]][] = [
    ["verify", "invoke a model", () => [invoke(profile)]],
    ["verify", "send mail", () => send(AGENT)],
    ["agent-step", "send mail", () => send(AGENT)],
    [
      "agent-step",
      "read raw inbound mail",
      () => [{ action: "s3:GetObject", resource: object("inbound/abc"), context: {} }],
    ],
    [
      "agent-step",
      "list raw inbound mail",
      () => [
        {
          action: "s3:ListBucket",
          resource: `arn:aws:s3:::${names.bucket(local.bucket)}`,
          context: { "s3:prefix": "inbound/" },
        },
      ],
    ],
    [
      "agent-step",
      "list transcripts (a missing one is known from the run item)",
      () => [
        {
          action: "s3:ListBucket",
          resource: `arn:aws:s3:::${names.bucket(local.bucket)}`,
          context: { "s3:prefix": "transcripts/" },
        },
      ],
    ],
    [
      "agent-step",
      "query the console's lists (runs by agent, threads by activity, plans by state)",
      () =>
        [
          [local.tables.runs, "byAgent"],
          [local.tables.threads, "byActivity"],
          [local.tables.state, "plansByState"],
        ].map(([t, ix]) => ({
          action: "dynamodb:Query",
          resource: `${names.tableArn(String(t))}/index/${ix}`,
          context: {},
        })),
    ],
    [
      "verify",
      "batch-read any table but state",
      () =>
        (["inbound", "messages", "threads", "runs", "runEvents"] as const).map((k) => ({
          action: "dynamodb:BatchGetItem",
          resource: names.tableArn(local.tables[k]),
          context: {},
        })),
    ],
    [
      "agent-step",
      "scan a runtime table",
      () => [{ action: "dynamodb:Scan", resource: names.tableArn(local.tables.messages), context: {} }],
    ],
    [
      "verify",
      "scan a runtime table",
      () => [{ action: "dynamodb:Scan", resource: names.tableArn(local.tables.inbound), context: {} }],
    ],
    ["outbound", "invoke a model", () => [invoke(profile)]],
    [
      "outbound",
      "read raw inbound mail",
      () => [{ action: "s3:GetObject", resource: object("inbound/abc"), context: {} }],
    ],
    ["outbound", "send as a domain that is not ours", () => send("ceo@victim.example")],
    [
      "outbound",
      "send as someone else through our identity",
      () => send("ceo@victim.example", "agents.example.com"),
    ],
  ];
  it.each(table)("%s may not %s", async (fn, _what, requests) => {
    for (const r of requests()) expect(`${r.action} ${await verdict(fn, r)}`).toMatch(/Denied$/);
  });
});
