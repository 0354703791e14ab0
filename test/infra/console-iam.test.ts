// The console's IAM, proven call by call (as iam-calls.test.ts does for the pipeline functions): the console runs on
// the local stack with every AWS SDK command it makes recorded; each call is turned into what AWS authorizes for it
// and evaluated with AWS's policy logic (iam-simulate) against the console role's policies as synthesized. Every
// call must be allowed, and the writes the console must never make are denied.

import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import { GROUPS } from "../../console/auth/principal.ts";
import type { ObservedCall } from "../../shared/aws/observe.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { TABLE_KEYS } from "../../shared/config/tables.ts";
import { awsSecretSource, awsSecretsStore } from "../../shared/secrets/index.ts";
import { secretManagerStore } from "../../shared/webhooks/index.ts";
import {
  APPROVER,
  ConsoleClient,
  type ConsoleStack,
  HELPDESK,
  SHOP,
  startConsoleStack,
} from "../console/harness.ts";
import { DeployedTemplate } from "../helpers/aws-contract/deployed-template.ts";
import { type DeployedNames, type IamRequest, iamRequests } from "../helpers/aws-contract/iam-requests.ts";
import { simulate } from "../helpers/aws-contract/simulate.ts";
import { type HostileServer, startHostileServer } from "../helpers/mcp-servers/hostile.ts";
import { waitFor } from "../helpers/pipeline-stack.ts";
import { ENV, FIXTURES, logicalId, type Synthesized, synth } from "./synth.ts";

let s: Synthesized;
let deployed: DeployedTemplate;
let names: DeployedNames;
let local: Resources;
let hostile: HostileServer;
const calls: ObservedCall[] = [];

beforeAll(async () => {
  s = synth(`${FIXTURES}/console.config.json`);
  deployed = new DeployedTemplate(s.stack.resolve(s.template.toJSON()) as Record<string, unknown>, {
    partition: "aws",
    account: ENV.account,
    region: ENV.region,
    stackName: "Postern",
  });
  let cs: ConsoleStack | undefined;
  try {
    hostile = await startHostileServer();
    // Secrets Manager as the console's Lambda reaches it (webhook signing secrets, MCP credentials), every call
    // recorded: locally the console keeps secrets in a file, which would prove nothing about the grant.
    const sm = recordingSecretsManager((c) => calls.push(c));
    cs = await startConsoleStack({
      observeConsole: (c) => calls.push(c),
      webhookSecrets: secretManagerStore(awsSecretsStore({ client: sm }), { ttlMs: 0 }),
      mcpSecrets: awsSecretSource({ secretsManager: sm }),
    });
    local = cs.stack.resources;
    await drive(cs);
  } finally {
    await cs?.console.stop();
    await cs?.stack.stop();
    await hostile?.close();
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
    bucket: () => deployed.physicalName(logicalId(s.stack, s.stack.store.bucket)),
    queueArn: (url) => {
      if (url === local.queues.events)
        return deployed.getAtt(logicalId(s.stack, s.stack.webhooks.queue.queue), "Arn");
      const key = (["verify", "agentStep", "outbound"] as const).find((k) => local.queues[k] === url);
      if (!key) throw new Error(`unknown queue ${url}`);
      return deployed.getAtt(logicalId(s.stack, s.stack.queues[key].queue), "Arn");
    },
    configurationSet: "postern",
    profileRegions: () => [ENV.region],
    // Secrets Manager appends "-" and six characters to a secret's name in its ARN.
    secretArn: (name) => `arn:aws:secretsmanager:${ENV.region}:${ENV.account}:secret:${name}-AbCdEf`,
    sandbox: false,
  };
}, 300_000);
afterAll(() => rmSync(s?.outdir ?? "/nonexistent", { recursive: true, force: true }));

/** Every page, every kind of admin change, a plan applied: what an operator does in a day. */
async function drive(cs: ConsoleStack): Promise<void> {
  const mail = async (to: string, subject: string) => {
    const sent = await devSend({
      dir: cs.dir,
      zoneFile: cs.stack.zoneFile,
      from: "carol@customer.example",
      to: [to],
      subject,
      body: "Hello",
      port: cs.stack.smtp.port,
    });
    if (!sent.ok) throw new Error(sent.reason);
  };
  await mail(HELPDESK, "Opening hours");
  await mail("nobody@agents.example.net", "refused");
  await mail(SHOP, "Refund A-1002");
  const runId = await waitFor("a pending plan", async () => {
    const runs = await cs.stores.runs.listRecent(20);
    for (const r of runs.filter((x) => x.agent === SHOP))
      if ((await cs.stores.state.get(`plan#${r.runId}`, "plan"))?.state === "pending") return r.runId;
    return undefined;
  });
  const admin = new ConsoleClient(cs.console.url);
  await admin.signIn(cs.console.link());
  const helpdesk = encodeURIComponent(HELPDESK);
  const agentPage = await (await admin.get(`/agents/${helpdesk}`)).text();
  const thread = /href="(\/agents\/[^"]+\/threads\/[^"]+)"/.exec(agentPage)?.[1] ?? "";
  const run = /href="(\/runs\/[^"]+)"/.exec(agentPage)?.[1] ?? "";
  for (const path of [
    "/",
    thread,
    run,
    `/agents/${helpdesk}/runs`,
    `/agents/${helpdesk}/threads`,
    "/refusals",
    "/refusals?reason=unknown-address",
    // G19: the failure feed, one Query of `state` per day.
    "/failures",
    "/plans",
    `/plans/${runId}`,
    "/admin",
    "/audit",
  ]) {
    const r = await admin.get(path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
  }
  const csrf = await admin.csrf();
  const post = async (path: string, form: Record<string, string>) => {
    const r = await admin.post(path, { ...form, _csrf: csrf });
    if (r.status !== 303) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  await post("/admin/accessRules/add", { agent: HELPDESK, pattern: "x@y.example", effect: "deny" });
  await post("/admin/accessRules/delete", { agent: HELPDESK, pattern: "x@y.example", effect: "deny" });
  await post("/admin/agents/add", {
    address: `new@agents.example.net`,
    name: "New",
    model: "reply",
    enabled: "on",
  });
  await post("/admin/toolkits/edit", {
    id: "refunds",
    tools: "issue_refund",
    agents: `${SHOP}, new@agents.example.net`,
  });
  await post("/admin/agents/delete", { address: "new@agents.example.net" });
  await post("/admin/approvers/add", { toolkit: "refunds", address: "second@approvers.example" });
  // Webhook endpoints: the secret made and stored, rotated, a test event queued, an edit, the removal.
  const page = async (path: string, form: Record<string, string>) => {
    const r = await admin.post(path, { ...form, _csrf: csrf });
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.text();
  };
  const hook = { url: "https://hooks.example.com/postern", allEvents: "on", enabled: "on" };
  await page("/webhooks/add", { id: "crm", ...hook });
  await page("/webhooks/crm/rotate", { overlapHours: "24" });
  await post("/webhooks/crm/test", {});
  await post("/webhooks/crm/edit", hook);
  await post("/webhooks/crm/delete", { confirm: "yes" });
  // An MCP server with a bearer token in Secrets Manager: listed to review, saved, reviewed again, removed.
  const review = await page("/mcp/add", {
    id: "orders",
    url: hostile.url,
    authKind: "bearer",
    bearerSecret: "secretsmanager:postern/mcp/orders",
  });
  const server = /name="server" value="([^"]*)"/.exec(review)?.[1]?.replaceAll("&quot;", '"') ?? "";
  await post("/mcp/save", { mode: "add", server });
  if ((await admin.get("/mcp/orders/review")).status !== 200) throw new Error("mcp review");
  await post("/mcp/orders/delete", { confirm: "yes" });
  const approver = new ConsoleClient(cs.console.url);
  await approver.signIn(cs.console.link({ email: APPROVER, groups: [GROUPS.viewers] }));
  const c2 = await approver.csrf(`/plans/${runId}`);
  // Apply asks first; its confirmation page posts confirm=yes.
  const applied = await approver.post(`/plans/${runId}/apply`, { _csrf: c2, confirm: "yes" });
  if (applied.status !== 303) throw new Error(`apply: ${applied.status}`);
}

/**
 * Secrets Manager in memory, for the four operations the console's stores send, each recorded as the SDK observer
 * records a call; a missing secret answers ResourceNotFoundException as the service does.
 */
function recordingSecretsManager(record: (c: ObservedCall) => void) {
  const secrets = new Map<string, string>([["postern/mcp/orders", "t0ken"]]);
  const missing = () => Object.assign(new Error("not found"), { name: "ResourceNotFoundException" });
  return {
    async send(command: { constructor: { name: string }; input: object }): Promise<never> {
      const operation = command.constructor.name.replace(/Command$/, "");
      const input = command.input as { SecretId?: string; Name?: string; SecretString?: string };
      const id = input.SecretId ?? input.Name ?? "";
      const known = secrets.has(id);
      record({
        service: "SecretsManager",
        operation,
        input: input as Record<string, unknown>,
        ...(known || operation === "CreateSecret" ? {} : { error: "ResourceNotFoundException" }),
      });
      if (operation === "CreateSecret") secrets.set(id, input.SecretString ?? "");
      else if (!known) throw missing();
      else if (operation === "PutSecretValue") secrets.set(id, input.SecretString ?? "");
      else if (operation === "DeleteSecret") secrets.delete(id);
      return (operation === "GetSecretValue" ? { SecretString: secrets.get(id) } : {}) as never;
    },
  };
}

const role = () => logicalId(s.stack, { node: { defaultChild: s.stack.console?.role.node.defaultChild } });

async function allowed(request: IamRequest): Promise<boolean> {
  const r = role();
  const v = await simulate(
    { arn: deployed.getAtt(r, "Arn"), identityPolicies: deployed.identityPolicies(r) },
    request,
    { resourceAccount: ENV.account },
  );
  return v === "Allowed";
}

/** DynamoDB sets dynamodb:LeadingKeys to the item's partition key on item operations; the console's one runtime put is conditioned on it. */
function withLeadingKeys(call: ObservedCall, req: IamRequest): IamRequest {
  const item =
    (call.input as { Item?: Record<string, { S?: string }>; Key?: Record<string, { S?: string }> }).Item ??
    (call.input as { Key?: Record<string, { S?: string }> }).Key;
  const pk = item && (item.pk?.S ?? Object.values(item)[0]?.S);
  return pk && call.service === "DynamoDB"
    ? { ...req, context: { ...req.context, "dynamodb:LeadingKeys": [pk] } }
    : req;
}

describe("the console's AWS calls", () => {
  it("are each allowed by the console role as deployed", async () => {
    expect(calls.length).toBeGreaterThan(20);
    const denied: string[] = [];
    const seen = new Set<string>();
    for (const call of calls)
      for (const raw of iamRequests(call, names)) {
        const req = withLeadingKeys(call, raw);
        const key = `${req.action} ${req.resource} ${JSON.stringify(req.context)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (!(await allowed(req))) denied.push(key);
      }
    expect(denied).toEqual([]);
  });

  it("make, rotate, read and remove webhook secrets, read the MCP credential, and queue the test event", () => {
    const sm = calls.filter((c) => c.service === "SecretsManager");
    const ops = (id: string) =>
      sm.filter((c) => (c.input.SecretId ?? c.input.Name) === id).map((c) => c.operation);
    expect(new Set(ops("postern/webhooks/crm"))).toEqual(
      new Set(["PutSecretValue", "CreateSecret", "GetSecretValue", "DeleteSecret"]),
    );
    expect(new Set(ops("postern/mcp/orders"))).toEqual(new Set(["GetSecretValue"]));
    expect(sm.every((c) => /^postern\/(webhooks|mcp)\//.test(String(c.input.SecretId ?? c.input.Name)))).toBe(
      true,
    );
    expect(calls.some((c) => c.service === "SQS" && c.input.QueueUrl === local.queues.events)).toBe(true);
  });

  it("read the client id and origin parameters, and nothing denied is reachable: writing mail, other state writes, sending mail", async () => {
    const tables = (k: (typeof TABLE_KEYS)[number]) =>
      deployed.getAtt(logicalId(s.stack, s.stack.tables.tables[k]), "Arn");
    const bucket = deployed.physicalName(logicalId(s.stack, s.stack.store.bucket));
    for (const name of ["client-id", "origin"])
      expect(
        await allowed({
          action: "ssm:GetParameter",
          resource: `arn:aws:ssm:${ENV.region}:${ENV.account}:parameter/Postern/console/${name}`,
          context: {},
        }),
        name,
      ).toBe(true);
    const never: IamRequest[] = [
      // Raw inbound mail is read (admins download it), never written or deleted.
      { action: "s3:PutObject", resource: `arn:aws:s3:::${bucket}/inbound/abc`, context: {} },
      { action: "s3:DeleteObject", resource: `arn:aws:s3:::${bucket}/inbound/abc`, context: {} },
      { action: "s3:PutObject", resource: `arn:aws:s3:::${bucket}/mail/x`, context: {} },
      {
        action: "dynamodb:PutItem",
        resource: tables("state"),
        context: { "dynamodb:LeadingKeys": ["plan#run-1"] },
      },
      {
        action: "dynamodb:UpdateItem",
        resource: tables("state"),
        context: { "dynamodb:LeadingKeys": ["plan#run-1"] },
      },
      { action: "dynamodb:PutItem", resource: tables("runs"), context: {} },
      { action: "dynamodb:DeleteItem", resource: tables("audit"), context: {} },
      { action: "dynamodb:Scan", resource: tables("inbound"), context: {} },
      {
        action: "ses:SendRawEmail",
        resource: `arn:aws:ses:${ENV.region}:${ENV.account}:identity/agents.example.com`,
        context: {},
      },
      {
        action: "sqs:SendMessage",
        resource: deployed.getAtt(logicalId(s.stack, s.stack.queues.outbound.queue), "Arn"),
        context: {},
      },
      // The events DLQ is the worker's alone.
      {
        action: "sqs:SendMessage",
        resource: deployed.getAtt(logicalId(s.stack, s.stack.webhooks.queue.deadLetterQueue), "Arn"),
        context: {},
      },
      // Secrets: webhook signing secrets are written under their prefix only; MCP credentials and model keys are
      // never written, and a model key is never read.
      ...["CreateSecret", "PutSecretValue", "DeleteSecret"].map((op) => ({
        action: `secretsmanager:${op}`,
        resource: `arn:aws:secretsmanager:${ENV.region}:${ENV.account}:secret:postern/mcp/orders-AbCdEf`,
        context: {},
      })),
      ...["GetSecretValue", "PutSecretValue"].map((op) => ({
        action: `secretsmanager:${op}`,
        resource: `arn:aws:secretsmanager:${ENV.region}:${ENV.account}:secret:postern/anthropic-AbCdEf`,
        context: {},
      })),
    ];
    for (const r of never) expect(await allowed(r), `${r.action} ${r.resource}`).toBe(false);
  });
});
