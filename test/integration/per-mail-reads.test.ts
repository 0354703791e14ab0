import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSend } from "../../cli/local/dev-send.ts";
import type { CallIssuer, LocalStack } from "../../cli/local/stack.ts";
import type { ObservedCall } from "../../shared/aws/observe.ts";
import { makeStores } from "../../shared/store/stores.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";
import { replyOnce, startPipelineStack, waitFor } from "../helpers/pipeline-stack.ts";

/**
 * What one mail costs must not grow with the deployment. Through the whole local pipeline with every
 * SDK call recorded: once a container has loaded the admin state, a mail's path (verify, agent-step, outbound)
 * makes no Scan and no Query without a Limit, whatever the tables hold.
 */

const AGENT = "helpdesk@agents.example.net";
const FUNCTIONS: readonly CallIssuer[] = ["verify", "agent-step", "outbound"];
let stack: LocalStack;
let dir: string;
let calls: { issuer: CallIssuer; call: ObservedCall }[] = [];
/** SES sends so far (never reset): the reply to mail i is the (i+1)th. */
let sends = 0;

beforeAll(async () => {
  ({ stack, dir } = await startPipelineStack({
    ...replyOnce("Thanks, on it."),
    observe: (issuer) => (call) => {
      calls.push({ issuer, call });
      if (issuer === "outbound" && call.service === "SESv2") sends++;
    },
  }));
  await makeStores(stack.clients, stack.resources, recordingLogger()).admin.putAgent({
    address: AGENT,
    name: "Help",
    model: "demo",
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function answered(i: number): Promise<void> {
  const sent = await devSend({
    dir,
    zoneFile: stack.zoneFile,
    from: `carol${i}@customer.example`,
    to: [AGENT],
    subject: `Order ${i}`,
    body: "Where is my order?",
    port: stack.smtp.port,
  });
  if (!sent.ok) throw new Error(sent.reason);
  await waitFor(`the reply to mail ${i}`, () => (sends >= i + 1 ? true : undefined));
  // Let the last round's bookkeeping (marking it done, finishing the run) land.
  await new Promise((r) => setTimeout(r, 1500));
}

describe("a mail's reads", () => {
  it("make no Scan and no unbounded Query once the admin state is loaded", async () => {
    await answered(0);
    calls = [];
    await answered(1);
    await answered(2);
    const mine = calls.filter((c) => FUNCTIONS.includes(c.issuer) && c.call.service === "DynamoDB");
    expect(mine.length).toBeGreaterThan(0);
    const scans = mine.filter((c) => c.call.operation === "Scan");
    expect(scans.map((c) => `${c.issuer} ${String(c.call.input.TableName)}`)).toEqual([]);
    const unbounded = mine.filter((c) => c.call.operation === "Query" && c.call.input.Limit === undefined);
    expect(
      unbounded.map(
        (c) => `${c.issuer} ${String(c.call.input.TableName)} ${String(c.call.input.IndexName ?? "")}`,
      ),
    ).toEqual([]);
  });

  it("read the admin version and the run's message once per delivery, and the run once per round", async () => {
    calls = [];
    await answered(3);
    const gets = (issuer: CallIssuer, pk: string) =>
      calls.filter(
        (c) =>
          c.issuer === issuer &&
          c.call.operation === "GetItem" &&
          JSON.stringify(c.call.input.Key ?? {}).includes(pk),
      ).length;
    // One round (the reply ends the run): one agent-step delivery, one outbound delivery.
    expect(gets("agent-step", '"pk":"admin#version"')).toBe(1);
    expect(gets("agent-step", '"runId":"run-')).toBe(1);
    expect(
      calls.filter(
        (c) =>
          c.issuer === "agent-step" &&
          c.call.operation === "GetItem" &&
          String(c.call.input.TableName).endsWith("messages"),
      ),
    ).toHaveLength(1);
    expect(gets("outbound", '"pk":"admin#version"')).toBe(1);
    expect(
      calls.filter((c) => c.issuer === "outbound" && String(c.call.input.TableName).endsWith("agents")),
    ).toEqual([]);
  });
});
