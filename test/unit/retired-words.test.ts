import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../layers/source-files.ts";

// One word per concept (docs/architecture.md, Glossary). Round three renamed the words that meant two or three
// things; this list keeps the retired ones out of code identifiers, so a new file cannot bring one back. Comments
// and strings are not code identifiers (a log line may still say "delivery" of a webhook delivery), so both are
// blanked before the scan. Deployed names that could not change (the delivery-events function, the `events` and
// `deliveryEvents` queue keys of a stack's resources) are not on the list: the Glossary's "Former names" says why.

const ROOT = resolve(import.meta.dirname, "../..");
const SHIPPED = ["shared", "functions", "cli", "console", "infra", "bin", "tools"];

/** Retired identifier → what replaced it. */
const RETIRED: Readonly<Record<string, string>> = {
  EventSink: "WebhookSink (a signed event for an endpoint is a webhook event)",
  noEvents: "noWebhooks",
  eventSinkFor: "webhookSinkFor",
  EventsMessage: "WebhooksPayload (a queue body is a payload)",
  RunEventSink: "TraceSink (the run's trace)",
  createRunEventSink: "createTraceSink",
  beginDelivery: "beginReceive (an SQS message handed to a function is a receive)",
  perDelivery: "perReceive",
  DeliveryEvent: "SendOutcome (SES's word about mail we sent)",
  StepMessage: "StepPayload",
  TickMessage: "TickPayload",
  ConfirmMessage: "ConfirmPayload",
  OutboundMessage: "OutboundPayload",
  AgentStepMessage: "AgentStepPayload",
  parseAgentStepMessage: "parseAgentStepPayload",
  parseOutboundMessage: "parseOutboundPayload",
  parseEventsMessage: "parseWebhooksPayload",
  isRetryable: "PosternError.isRetryable only; a model failure is isTransientModelFailure",
  mailbox: "address, in shared/gate (RFC 5322's mailbox is our address; a mailbox is an agent's stored mail)",
  mailboxes: "addresses, in shared/gate",
};

/** Where a word is retired only in part of the tree: elsewhere it keeps its glossary meaning. */
const ONLY_UNDER: Readonly<Record<string, string>> = { mailbox: "shared/gate/", mailboxes: "shared/gate/" };

/** The property `PosternError.isRetryable` is the one left: its declaration and reads are `.isRetryable`/`get`. */
const ALLOWED = (word: string, code: string, at: number): boolean =>
  word === "isRetryable" && (code[at - 1] === "." || /get\s+$/.test(code.slice(Math.max(0, at - 8), at)));

/** `code` with comments and string literals blanked (same length, so positions and lines stay). */
function codeOnly(source: string): string {
  return source.replace(
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`/g,
    (m) => m.replace(/[^\n]/g, " "),
  );
}

function retiredIn(path: string, source: string): string[] {
  const code = codeOnly(source);
  const found: string[] = [];
  for (const word of Object.keys(RETIRED)) {
    const under = ONLY_UNDER[word];
    if (under !== undefined && !path.startsWith(under)) continue;
    for (const m of code.matchAll(new RegExp(`\\b${word}\\b`, "g"))) {
      if (ALLOWED(word, code, m.index)) continue;
      found.push(`${path}:${code.slice(0, m.index).split("\n").length} ${word} → ${RETIRED[word]}`);
    }
  }
  return found;
}

describe("retired words stay out of code identifiers", () => {
  it("finds a retired word in code, not in a comment or a string, and lets the kept property be", () => {
    const probe = [
      "// a StepMessage in a comment is prose",
      'const s = "beginDelivery";',
      "export type StepMessage = { runId: string };",
      "if (err.isRetryable) retry();",
      "const r = isRetryable(reason);",
    ].join("\n");
    expect(retiredIn("shared/x.ts", probe)).toEqual([
      `shared/x.ts:3 StepMessage → ${RETIRED.StepMessage}`,
      `shared/x.ts:5 isRetryable → ${RETIRED.isRetryable}`,
    ]);
    expect(retiredIn("shared/gate/x.ts", "const { mailbox } = parsed;")).toHaveLength(1);
    expect(retiredIn("shared/agent/mailbox/x.ts", "const mailbox = createMailbox();")).toEqual([]);
  });

  it("no shipped file uses one, and the renamed modules' old folders are gone", () => {
    const found = sourceFiles(ROOT, SHIPPED).flatMap((p) =>
      retiredIn(p, readFileSync(join(ROOT, p), "utf8")),
    );
    expect(found).toEqual([]);
    expect(["shared/events", "shared/messages"].filter((d) => existsSync(join(ROOT, d)))).toEqual([]);
  });
});
