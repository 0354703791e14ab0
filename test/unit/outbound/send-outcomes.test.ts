import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { readSendOutcome, recordSendOutcome } from "../../../shared/outbound/send-outcomes.ts";
import { noWebhooks } from "../../../shared/ports/index.ts";
import type { SendOutcome } from "../../../shared/ports/send-outcomes.ts";
import { recordingLogger } from "../../fakes/recording-logger.ts";

// The delivery-event recording core (G19) on SES's published event shapes (test/fixtures/ses-events, from the SES Developer
// Guide's examples), as SNS delivers them and as EventBridge wraps them.

const DIR = resolve(import.meta.dirname, "../../fixtures/ses-events");
const fixture = (name: string) => readFileSync(join(DIR, `${name}.json`), "utf8");
const inEventBridge = (detailType: string, record: string) =>
  JSON.stringify({
    version: "0",
    id: "b8c9d0e1-f2a3-4567-bcde-678901234567",
    "detail-type": detailType,
    source: "aws.ses",
    account: "123456789012",
    time: "2020-06-16T00:25:41Z",
    region: "us-east-1",
    resources: [],
    detail: JSON.parse(record),
  });
const SES_ID = "EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000";

const EXPECTED: [string, string, SendOutcome][] = [
  [
    "bounce",
    "Email Bounced",
    {
      agent: "sender@example.com",
      kind: "bounce",
      at: "2017-08-05T00:41:02.669Z",
      sesMessageId: SES_ID,
      detail: "Permanent/General",
      recipients: [
        { address: "recipient@example.com", status: "5.1.1", diagnostic: "smtp; 550 5.1.1 user unknown" },
      ],
    },
  ],
  [
    "complaint",
    "Email Complaint Received",
    {
      agent: "sender@example.com",
      kind: "complaint",
      at: "2017-08-05T00:41:02.669Z",
      sesMessageId: SES_ID,
      detail: "abuse",
      recipients: [{ address: "recipient@example.com" }],
    },
  ],
  [
    "reject",
    "Email Rejected",
    {
      agent: "sender@example.com",
      kind: "reject",
      at: "2017-08-05T00:40:01.123Z",
      sesMessageId: SES_ID,
      detail: "Bad content",
      recipients: [],
    },
  ],
  [
    "delivery-delay",
    "Email Delivery Delayed",
    {
      agent: "sender@example.com",
      kind: "delivery-delay",
      at: "2020-06-16T00:25:40.095Z",
      sesMessageId: SES_ID,
      detail: "TransientCommunicationFailure",
      recipients: [
        {
          address: "recipient@example.com",
          status: "4.4.1",
          diagnostic: "smtp; 421 4.4.1 Unable to connect to remote host",
        },
      ],
    },
  ],
];

describe("reading SES's event records", () => {
  it.each(EXPECTED)(
    "%s: the agent (the From address), kind, time, message, SES's detail and recipients",
    (name, _t, event) => {
      expect(readSendOutcome(fixture(name))).toEqual({ ok: true, event });
    },
  );

  it.each(EXPECTED)("%s inside an EventBridge event (%s) reads the same", (name, detailType, event) => {
    expect(readSendOutcome(inEventBridge(detailType, fixture(name)))).toEqual({ ok: true, event });
  });

  it("a kind Postern does not record (Send, Delivery, Open) is passed over, not refused", () => {
    const delivery = JSON.stringify({
      ...JSON.parse(fixture("reject")),
      eventType: "Delivery",
      reject: undefined,
    });
    expect(readSendOutcome(delivery)).toMatchObject({ ok: false, reason: "not-recorded-type" });
  });

  it("a recorded kind without its fields, a record without a sender, or no JSON is refused", () => {
    const bounce = JSON.parse(fixture("bounce"));
    delete bounce.bounce.bouncedRecipients;
    expect(readSendOutcome(JSON.stringify(bounce))).toMatchObject({ ok: false, reason: "malformed" });
    const anonymous = JSON.parse(fixture("delivery-delay"));
    delete anonymous.mail.source;
    expect(readSendOutcome(JSON.stringify(anonymous))).toEqual({ ok: false, reason: "no-sender" });
    expect(readSendOutcome("{")).toEqual({ ok: false, reason: "not-json" });
  });

  it("a remote server's diagnostic is kept short", () => {
    const bounce = JSON.parse(fixture("bounce"));
    bounce.bounce.bouncedRecipients[0].diagnosticCode = `smtp; 550 ${"x".repeat(5000)}`;
    const read = readSendOutcome(JSON.stringify(bounce));
    expect(read.ok && read.event.recipients[0]?.diagnostic?.length).toBe(500);
  });
});

describe("recording one", () => {
  const log = () => {
    const events: SendOutcome[] = [];
    return { events, record: async (e: SendOutcome) => void events.push(e) };
  };

  it("records each recorded kind once and logs it; passes over other kinds; refuses the unreadable", async () => {
    const l = log();
    const logger = recordingLogger();
    for (const [name] of EXPECTED)
      expect(await recordSendOutcome(fixture(name), { log: l, logger, webhooks: noWebhooks })).toBe(
        "recorded",
      );
    expect(l.events.map((e) => e.kind)).toEqual(["bounce", "complaint", "reject", "delivery-delay"]);
    const send = JSON.stringify({ ...JSON.parse(fixture("reject")), eventType: "Send", reject: undefined });
    expect(await recordSendOutcome(send, { log: l, logger, webhooks: noWebhooks })).toBe("ignored");
    expect(await recordSendOutcome("not json", { log: l, logger, webhooks: noWebhooks })).toBe("refused");
    expect(l.events).toHaveLength(4);
  });
});
