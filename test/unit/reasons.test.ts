import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DispatchReason } from "../../shared/agent/loop/dispatch.ts";
import type { TurnRefusal } from "../../shared/agent/loop/run-tool-calls.ts";
import type { ApplyRefusal } from "../../shared/agent/plans/apply-plan.ts";
import type { ClosedBecause, RunEndReason } from "../../shared/agent/ports.ts";
import type { ScheduleReason } from "../../shared/agent/runs/schedule.ts";
import type { OutboundReachReason } from "../../shared/gate/outbound-reach.ts";
import type { NotificationReason } from "../../shared/intake/notification.ts";
import type { InboundReason } from "../../shared/intake/process.ts";
import { NOTICE_REASONS } from "../../shared/mail/notice.ts";
import type { McpCallReason } from "../../shared/mcp/mcp-tool.ts";
import { MODEL_FAILURE_REASONS } from "../../shared/model/types.ts";
import type { SafeFetchFailure } from "../../shared/net/safe-fetch.ts";
import type { SearchReason } from "../../shared/net/search.ts";
import type { SendStateReason } from "../../shared/outbound/reasons.ts";
import type { PayloadRefusal } from "../../shared/payloads/parse-payload.ts";
import { FAILURE_CLASSES, type SenderNoticeOutcome } from "../../shared/ports/failures.ts";
import type { SecretReferenceReason } from "../../shared/secrets/reference.ts";
import type { CreateFileReason } from "../../shared/tool-framework/builtin/create-file.ts";
import type { ReadAttachmentReason } from "../../shared/tool-framework/builtin/read-attachment.ts";
import type { ReadEmailReason } from "../../shared/tool-framework/builtin/read-email.ts";
import type { SendEmailReason } from "../../shared/tool-framework/builtin/send-email.ts";
import type { DeliveryReason, UndeliveredReason } from "../../shared/webhooks/deliver.ts";

// docs/reasons.md is checked against the code both ways. Each family's list below is held to the union
// that defines it by the type checker: `covers<U>()(list)` compiles only when `list` holds every member of `U`
// and nothing else, so a code added to a union fails `npm run check` here until it is listed (and then this test,
// until it is documented). Tool failure codes written as literals (`toolFailure("...")`) are read from the source.

/** `list` is exactly the members of `U` (a missing member is a required second argument; an extra one, a type error). */
function covers<U extends string>() {
  return <const T extends readonly U[]>(
    list: T,
    ..._missing: [Exclude<U, T[number]>] extends [never] ? [] : [missing: Exclude<U, T[number]>]
  ): readonly string[] => list;
}

const ADDRESS = [
  "address-empty",
  "address-too-long",
  "address-control-char",
  "address-syntax",
  "address-comment",
  "address-multiple",
  "address-group",
  "address-obsolete",
  "address-domain-literal",
  "address-quoted-local",
  "address-encoded-word",
  "address-local-invalid",
  "address-local-non-ascii",
  "address-local-mixed-script",
  "address-domain-invalid",
  "address-display-name-invalid",
] as const;
const DKIM = [
  "dkim-none",
  "dkim-misaligned",
  "dkim-length-limited",
  "dkim-weak-algorithm",
  "dkim-from-unsigned",
  "dkim-temperror",
  "dkim-body-modified",
  "dkim-fail",
  "dkim-policy",
  "dkim-neutral",
  "dkim-testing-key",
  "dkim-weak-key",
  "dkim-future-timestamp",
  "dkim-key-multiple",
  "dkim-error",
] as const;
const ARC = [
  "arc-fail",
  "arc-temperror",
  "arc-too-many-sets",
  "arc-untrusted-sealer",
  "arc-no-author-pass",
  "arc-from-unsigned",
] as const;
const LIMITS = [
  "message-too-large",
  "headers-too-large",
  "mime-too-deep",
  "mime-too-many-parts",
  "too-many-attachments",
  "attachment-too-large",
  "attachments-too-large",
  "mime-unparseable",
] as const;

const GATE = covers<Exclude<InboundReason, "accepted">>()([
  "foreign-recipient",
  "unknown-recipient",
  "agent-disabled",
  ...LIMITS,
  "hop-limit",
  "auto-submitted",
  "bounce",
  "auto-reply-marker",
  "bulk-precedence",
  "list-mail",
  "header-malformed",
  "header-ambiguous",
  "header-duplicated",
  "from-missing",
  "from-not-utf8",
  ...ADDRESS,
  ...DKIM,
  ...ARC,
  "sender-proof-error",
  "self-sender",
  "not-addressed",
  "access-denied-global",
  "access-denied",
  "replayed",
]);

const RUN = [
  ...covers<Exclude<RunEndReason, `reached ${number} rounds`>>()([
    "model-stopped",
    "replied",
    "model-unknown",
    "agent-missing",
    "responsibility-missing",
    "message-missing",
    "step-retries-exhausted",
    "agent-runs-per-day",
    "sender-runs-per-day",
    "agent-tokens-per-day",
    "sender-tokens-per-day",
    ...MODEL_FAILURE_REASONS,
  ]),
  "reached <n> rounds",
];

const SEND = [
  ...covers<Exclude<SendStateReason, `ses-rejected:${string}`> | PayloadRefusal>()([
    "ses-no-answer",
    "crashed-while-sending",
    "agent-unknown",
    "agent-disabled",
    "domain-unregistered",
    "reply-target-not-found",
    "reply-target-not-inbound",
    "reply-target-missing",
    "subject-on-reply",
    "notice-malformed",
    "attachment-not-found",
    "recipient-not-allowed",
    "egress-channel-closed",
    "recipient-invalid",
    "too-many-recipients",
    "no-recipients",
    "too-many-attachments",
    "attachment-too-large",
    "attachments-too-large",
    "message-too-large",
    "payload-not-json",
    "payload-invalid",
  ]),
  "ses-rejected:<code>",
];

const TOOL_TYPED = covers<
  | DispatchReason
  | TurnRefusal
  | OutboundReachReason
  | ReadEmailReason
  | ReadAttachmentReason
  | SendEmailReason
  | CreateFileReason
  | SearchReason
  | SafeFetchFailure
  | McpCallReason
>()([
  "tool-call-limit",
  "tool-call-id-duplicate",
  "tool-call-id-invalid",
  "tool-input-malformed",
  "tool-unknown",
  "tool-not-granted",
  "tool-sender-denied",
  "tool-not-scheduled",
  "tool-input-too-large",
  "tool-input-invalid",
  "egress-unclassified",
  "egress-classifier-error",
  "egress-restricted-class",
  "egress-record-content",
  "egress-channel-closed",
  "recipient-not-allowed",
  "evidence-missing",
  "evidence-too-short",
  "evidence-not-quoted",
  "tool-confirm-unavailable",
  "tool-error",
  "tool-result-too-large",
  "reply-unavailable",
  "subject-on-reply",
  "to-required",
  "subject-required",
  "recipient-invalid",
  "too-many-recipients",
  "too-many-attachments",
  "attachment-not-found",
  "attachment-too-large",
  "attachments-too-large",
  "attachment-type-unsupported",
  "email-not-found",
  "email-id-required",
  "email-offset-past-end",
  "file-too-large",
  "file-content-invalid",
  "search-unavailable",
  "search-auth-failed",
  "search-rate-limited",
  "url-invalid",
  "scheme-not-allowed",
  "url-credentials",
  "dns-failed",
  "address-not-public",
  "too-many-redirects",
  "redirect-invalid",
  "redirect-not-allowed",
  "timeout",
  "connection-failed",
  "content-type-not-allowed",
  "content-encoding-unsupported",
  "mcp-call-budget",
  "mcp-no-principal",
  "mcp-definition-changed",
  "mcp-timeout",
  "mcp-call-failed",
  "mcp-tool-error",
  "mcp-host-not-allowed",
  "mcp-address-not-public",
  "mcp-redirect-refused",
  "mcp-response-too-large",
  "mcp-stdio-not-allowed",
  "mcp-auth-unavailable",
]);

/** Every `toolFailure("<code>"` in the tools and the agent core: codes a tool writes as a literal, not a union. */
function literalToolCodes(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
    });
  const codes = new Set<string>();
  for (const f of [...files("shared"), ...files("tools")])
    for (const m of readFileSync(f, "utf8").matchAll(/toolFailure\(\s*"([a-z0-9-]+)"/g))
      codes.add(m[1] as string);
  return [...codes];
}

const FAMILIES: Record<string, readonly string[]> = {
  failure: [
    ...FAILURE_CLASSES,
    ...covers<SenderNoticeOutcome>()(["sent", "already-today", "no-sender", "automatic-mail"]),
  ],
  gate: GATE,
  // Logged, never a verdict: verify read unsigned threading headers as absent.
  log: ["threading-unsigned"],
  notification: covers<NotificationReason>()([
    "notification-not-json",
    "notification-invalid",
    "notification-foreign-object",
  ]),
  run: RUN,
  send: SEND,
  notice: NOTICE_REASONS,
  tool: [...new Set([...TOOL_TYPED, ...literalToolCodes()])],
  confirm: [
    ...covers<ApplyRefusal>()([
      "confirm-agent-originated",
      "confirm-code-unknown",
      "confirm-wrong-agent",
      "confirm-from-agent",
      "confirm-not-approver",
      "confirm-not-pending",
      "confirm-expired",
      "confirm-unclear",
      "plan-tampered",
    ]),
    // apply-plan.ts: an approved plan whose agent is gone fails (`plan-failed`) with this reason.
    "agent-missing",
    // plan-card.ts: a plan nobody may confirm (the `plan-unconfirmable` event's reason).
    "no-approver",
  ],
  webhook: [
    ...covers<UndeliveredReason>()([
      "circuit-opened",
      "retries-exhausted",
      "receives-exhausted",
      "event-not-queued",
    ]),
    ...covers<DeliveryReason>()([
      "http-status",
      "timeout",
      "connection-failed",
      "url-invalid",
      "scheme-not-allowed",
      "url-credentials",
      "dns-failed",
      "address-not-public",
      "secret-missing",
      "circuit-open",
      "endpoint-gone",
      "endpoint-disabled",
      "not-subscribed",
    ]),
  ],
  channel: covers<ClosedBecause>()([
    "archive-read",
    "restricted-class",
    "classifier-error",
    "restricted-tool",
  ]),
  schedule: covers<ScheduleReason>()([
    "rate-unit-plural-mismatch",
    "schedule-syntax",
    "cron-needs-six-fields",
    "cron-year-unsupported",
    "cron-day-of-week",
    "cron-invalid",
  ]),
  secret: covers<SecretReferenceReason>()([
    "reference-empty",
    "reference-scheme",
    "reference-namespace",
    "reference-name",
  ]),
};

/** docs/reasons.md, per `<!-- family: x -->` section: the codes in the first column of its table. */
function documented(): Map<string, string[]> {
  const text = readFileSync("docs/reasons.md", "utf8");
  const out = new Map<string, string[]>();
  for (const section of text.split(/^## /m).slice(1)) {
    const family = /<!-- family: ([a-z]+) -->/.exec(section)?.[1];
    if (!family) throw new Error(`docs/reasons.md: section "${section.split("\n")[0]}" names no family`);
    const codes = [...section.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1] as string);
    out.set(family, [...(out.get(family) ?? []), ...codes]);
  }
  return out;
}

describe("docs/reasons.md explains every reason code the code can produce", () => {
  const docs = documented();

  it("has exactly the families the code has", () => {
    expect([...docs.keys()].sort()).toEqual(Object.keys(FAMILIES).sort());
  });

  it.each(Object.keys(FAMILIES))(
    "%s: every code documented once, and nothing documented that is not a code",
    (family) => {
      const code = [...new Set(FAMILIES[family])].sort();
      const doc = docs.get(family) ?? [];
      expect(doc.length, `${family}: a code documented twice`).toBe(new Set(doc).size);
      expect([...doc].sort()).toEqual(code);
    },
  );

  it("every code has a meaning and an operator action", () => {
    const text = readFileSync("docs/reasons.md", "utf8");
    for (const row of text.matchAll(/^\| `[^`]+` +\|([^|]*)\|([^|]*)\|/gm)) {
      expect(row[1]?.trim(), row[0]).not.toBe("");
      expect(row[2]?.trim(), row[0]).not.toBe("");
    }
  });
});
