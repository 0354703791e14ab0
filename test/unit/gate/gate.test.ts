import { beforeAll, describe, expect, it } from "vitest";
import type { AdminSnapshot, AgentItem } from "../../../shared/admin/schema.ts";
import { parseConfig } from "../../../shared/config/load.ts";
import type { DeploymentConfig } from "../../../shared/config/schema.ts";
import { type Decision, gateMessage } from "../../../shared/gate/gate.ts";
import type { SentMailLookup } from "../../../shared/ports/index.ts";
import type { ZoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import {
  buildMessage,
  resolverFor,
  signWith,
  type TestKeys,
  testKeys,
  zoneFor,
} from "../../helpers/dkim-test-keys.ts";

const NOW = new Date("2026-11-29T12:00:00Z");
const agent = (address: string, extra: Partial<AgentItem> = {}): AgentItem => ({
  address,
  name: "Agent",
  model: "demo",
  instructions: "",
  acceptAutoSubmitted: false,
  acceptListMail: false,
  acceptBcc: false,
  requireSignedAddressing: false,
  enabled: true,
  ...extra,
});

const baseConfig = (over: Record<string, unknown> = {}): DeploymentConfig =>
  parseConfig({
    domains: ["agents.example.net"],
    models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
    ...over,
  });

const admin = (over: Partial<AdminSnapshot> = {}): AdminSnapshot => ({
  agents: [agent("helpdesk@agents.example.net"), agent("sales@agents.example.net")],
  accessRules: [],
  outboundRules: [],
  toolkits: [],
  responsibilities: [],
  approvers: [],
  webhooks: [],
  mcpServers: [],
  ...over,
});

let keys: TestKeys;
beforeAll(async () => {
  keys = await testKeys();
});

async function signed(
  parts: Parameters<typeof buildMessage>[0] = {},
  domain = "example.com",
): Promise<Buffer> {
  return signWith(keys, "rsa2048", buildMessage(parts), { domain });
}

async function run(
  raw: Buffer,
  recipients: string[],
  opts: {
    config?: DeploymentConfig;
    admin?: AdminSnapshot;
    mailFrom?: string | null;
    resolver?: ZoneResolver;
    now?: Date;
    sentMail?: SentMailLookup;
  } = {},
): Promise<readonly Decision[]> {
  const result = await gateMessage({
    raw,
    envelope: {
      sesMessageId: "m1",
      recipients,
      mailFrom: opts.mailFrom === undefined ? "alice@example.com" : opts.mailFrom,
    },
    config: opts.config ?? baseConfig(),
    admin: opts.admin ?? admin(),
    resolver: opts.resolver ?? resolverFor(zoneFor(keys, ["example.com"])),
    now: opts.now ?? NOW,
    sentMail: opts.sentMail ?? (async () => []),
  });
  return result.decisions;
}

const summary = (d: readonly Decision[]) => d.map((x) => [x.recipient, x.verdict, x.reason]);

describe("gateMessage", () => {
  it("accepts a proven sender for a registered agent and names the routing key", async () => {
    const d = await run(await signed({ from: "Alice <Alice+q3@Example.com>" }), [
      "helpdesk@agents.example.net",
    ]);
    expect(summary(d)).toEqual([["helpdesk@agents.example.net", "accept", "accepted"]]);
    expect(d[0]?.verdict === "accept" && d[0].sender.routingKey).toBe("alice@example.com");
  });

  it("G1: routes on envelope recipients only; unknown local part refused; foreign domains dropped", async () => {
    const d = await run(await signed({ headers: ["Cc: sales@agents.example.net"] }), [
      "nobody@agents.example.net",
      "x@elsewhere.example",
      "sales@agents.example.net",
    ]);
    expect(summary(d)).toEqual([
      ["x@elsewhere.example", "drop", "foreign-recipient"],
      ["sales@agents.example.net", "accept", "accepted"],
      ["nobody@agents.example.net", "refuse", "unknown-recipient"],
    ]);
  });

  it("G1: two agents get two independent decisions", async () => {
    const a = admin({
      accessRules: [{ agent: "sales@agents.example.net", pattern: "alice@example.com", effect: "deny" }],
    });
    const d = await run(
      await signed({ headers: ["Cc: sales@agents.example.net"] }),
      ["helpdesk@agents.example.net", "sales@agents.example.net"],
      { admin: a },
    );
    expect(summary(d)).toEqual([
      ["helpdesk@agents.example.net", "accept", "accepted"],
      ["sales@agents.example.net", "refuse", "access-denied"],
    ]);
  });

  it("G3: the global ceiling refuses even where the agent allows", async () => {
    const config = baseConfig({ inboundAccess: [{ pattern: "*@example.com", effect: "deny" }] });
    const a = admin({
      accessRules: [{ agent: "helpdesk@agents.example.net", pattern: "alice@example.com", effect: "allow" }],
    });
    const d = await run(await signed(), ["helpdesk@agents.example.net"], { config, admin: a });
    expect(summary(d)).toEqual([["helpdesk@agents.example.net", "refuse", "access-denied-global"]]);
  });

  it("G3: an agent allow list refuses everyone else, matched on the routing key", async () => {
    const a = admin({
      accessRules: [{ agent: "helpdesk@agents.example.net", pattern: "bob@example.com", effect: "allow" }],
    });
    const d = await run(await signed(), ["helpdesk@agents.example.net"], { admin: a });
    expect(d[0]?.reason).toBe("access-denied");
  });

  it("G2: an unsigned message is refused and never notified (G6)", async () => {
    const d = await run(Buffer.from(buildMessage()), ["helpdesk@agents.example.net"]);
    expect(d[0]).toMatchObject({ verdict: "refuse", reason: "dkim-none", proven: false, notify: false });
  });

  it("G6: an access refusal is notified to a proven sender; an unknown address too", async () => {
    const a = admin({
      accessRules: [{ agent: "helpdesk@agents.example.net", pattern: "alice@example.com", effect: "deny" }],
    });
    const d = await run(await signed(), ["helpdesk@agents.example.net", "ghost@agents.example.net"], {
      admin: a,
    });
    expect(d.map((x) => x.verdict !== "accept" && x.notify)).toEqual([true, true]);
  });

  it("G6: an unknown address with an unproven sender is refused silently", async () => {
    const d = await run(Buffer.from(buildMessage()), ["ghost@agents.example.net"]);
    expect(d[0]).toMatchObject({ verdict: "refuse", reason: "unknown-recipient", notify: false });
  });

  it("G1/G6: mail only for unknown addresses is refused without running DKIM, so without a notice", async () => {
    const resolver = resolverFor(zoneFor(keys, ["example.com"]));
    const d = await run(await signed(), ["ghost@agents.example.net"], { resolver });
    expect(d[0]).toMatchObject({ reason: "unknown-recipient", proven: false, notify: false });
    expect(resolver.calls).toEqual([]);
  });

  it("G5: at the hop limit the message is dropped silently, even for an opted-in agent", async () => {
    const raw = await signed({ headers: ["X-Postern-Recursion: 50"] });
    const a = admin({ agents: [agent("helpdesk@agents.example.net", { acceptAutoSubmitted: true })] });
    const d = await run(raw, ["helpdesk@agents.example.net"], { admin: a });
    expect(d[0]).toMatchObject({ verdict: "drop", reason: "hop-limit", notify: false });
    const below = await run(
      await signed({ headers: ["X-Postern-Recursion: 49"] }),
      ["helpdesk@agents.example.net"],
      { admin: a },
    );
    expect(below[0]).toMatchObject({ verdict: "accept", hop: 49 });
  });

  it("G5: auto-submitted mail and bounces start no run unless the agent opts in", async () => {
    const auto = await signed({ headers: ["Auto-Submitted: auto-replied"] });
    expect((await run(auto, ["helpdesk@agents.example.net"]))[0]).toMatchObject({
      verdict: "drop",
      reason: "auto-submitted",
    });
    const bounce = await signed();
    expect((await run(bounce, ["helpdesk@agents.example.net"], { mailFrom: "" }))[0]).toMatchObject({
      verdict: "drop",
      reason: "bounce",
    });
    const a = admin({ agents: [agent("helpdesk@agents.example.net", { acceptAutoSubmitted: true })] });
    // Accepted, and marked automatic: the run it starts never mails its sender unasked (G6).
    expect((await run(auto, ["helpdesk@agents.example.net"], { admin: a }))[0]).toMatchObject({
      verdict: "accept",
      automatic: true,
    });
    const person = await run(await signed(), ["helpdesk@agents.example.net"], { admin: a });
    expect(person[0]?.verdict === "accept" && person[0].automatic).toBeFalsy();
  });

  it("G5: list mail starts no run unless the agent sets acceptListMail, and is never notified (G6)", async () => {
    const raw = await signed({ headers: ["List-Id: <users.lists.example>"] });
    expect((await run(raw, ["helpdesk@agents.example.net"]))[0]).toMatchObject({
      verdict: "drop",
      reason: "list-mail",
      notify: false,
    });
    const lists = agent("helpdesk@agents.example.net", { acceptListMail: true });
    expect(
      (await run(raw, ["helpdesk@agents.example.net"], { admin: admin({ agents: [lists] }) }))[0]?.verdict,
    ).toBe("accept");
    const denied = admin({
      agents: [lists],
      accessRules: [{ agent: "helpdesk@agents.example.net", pattern: "alice@example.com", effect: "deny" }],
    });
    expect((await run(raw, ["helpdesk@agents.example.net"], { admin: denied }))[0]).toMatchObject({
      verdict: "refuse",
      reason: "access-denied",
      proven: true,
      notify: false,
    });
  });

  it("G6: automatic mail is never notified, even when refused for a proven sender", async () => {
    const raw = await signed({ headers: ["Auto-Submitted: auto-replied"] });
    const a = admin({
      agents: [agent("helpdesk@agents.example.net", { acceptAutoSubmitted: true })],
      accessRules: [{ agent: "helpdesk@agents.example.net", pattern: "alice@example.com", effect: "deny" }],
    });
    const d = await run(raw, ["helpdesk@agents.example.net", "ghost@agents.example.net"], { admin: a });
    expect(summary(d)).toEqual([
      ["helpdesk@agents.example.net", "refuse", "access-denied"],
      ["ghost@agents.example.net", "refuse", "unknown-recipient"],
    ]);
    expect(d.map((x) => x.verdict !== "accept" && [x.proven, x.notify])).toEqual([
      [true, false],
      [true, false],
    ]);
  });

  it("G7: size and header-size refusals come before sender proof: DKIM never runs, nothing is notified", async () => {
    const resolver = resolverFor(zoneFor(keys, ["example.com"]));
    const small = baseConfig({ attachments: { maxMessageBytes: 200 } });
    const d = await run(await signed({ body: "x".repeat(500) }), ["helpdesk@agents.example.net"], {
      config: small,
      resolver,
    });
    expect(d[0]).toMatchObject({
      verdict: "refuse",
      reason: "message-too-large",
      proven: false,
      notify: false,
    });
    const tight = baseConfig({ attachments: { maxHeaderBytes: 300 } });
    const long = await signed({ headers: [`X-Filler: ${"y".repeat(400)}`] });
    const h = await run(long, ["helpdesk@agents.example.net"], { config: tight, resolver });
    expect(h[0]).toMatchObject({ verdict: "refuse", reason: "headers-too-large", notify: false });
    expect(resolver.calls).toEqual([]);
  });

  it("G7: too many attachments are refused at the edge", async () => {
    const config = baseConfig({ attachments: { maxAttachments: 1 } });
    const boundary = "b1";
    const att = (n: number) =>
      [
        `--${boundary}`,
        `Content-Type: text/plain; name="f${n}.txt"`,
        `Content-Disposition: attachment; filename="f${n}.txt"`,
        "",
        `file ${n}`,
      ].join("\r\n");
    const body = [
      `--${boundary}`,
      "Content-Type: text/plain",
      "",
      "hi",
      att(1),
      att(2),
      `--${boundary}--`,
      "",
    ].join("\r\n");
    const raw = await signed({
      headers: ["MIME-Version: 1.0", `Content-Type: multipart/mixed; boundary="${boundary}"`],
      body,
    });
    const d = await run(raw, ["helpdesk@agents.example.net"], { config });
    // MIME limits are judged after sender proof, so the proven sender learns why.
    expect(d[0]).toMatchObject({ verdict: "refuse", reason: "too-many-attachments", notify: true });
  });

  it("a disabled agent's address is refused like an unknown one", async () => {
    const a = admin({ agents: [agent("helpdesk@agents.example.net", { enabled: false })] });
    const d = await run(await signed(), ["helpdesk@agents.example.net"], { admin: a });
    expect(d[0]).toMatchObject({ verdict: "refuse", reason: "agent-disabled" });
  });

  it("refusals carry what the notice needs: the proven sender, proof, and the inbound hop", async () => {
    const a = admin({
      accessRules: [{ agent: "helpdesk@agents.example.net", pattern: "alice@example.com", effect: "deny" }],
    });
    const d = await run(
      await signed({ headers: ["X-Postern-Recursion: 3"] }),
      ["helpdesk@agents.example.net", "ghost@agents.example.net"],
      { admin: a },
    );
    expect(d).toEqual([
      expect.objectContaining({
        recipient: "helpdesk@agents.example.net",
        reason: "access-denied",
        sender: "alice@example.com",
        proven: true,
        hop: 3,
      }),
      expect.objectContaining({
        recipient: "ghost@agents.example.net",
        reason: "unknown-recipient",
        sender: "alice@example.com",
        proven: true,
        hop: 3,
      }),
    ]);
  });

  it("G7 before G5: an oversized auto-reply is refused on size (never notified), before the loop guard reads it", async () => {
    const config = baseConfig({ attachments: { maxMessageBytes: 300 } });
    const raw = await signed({ headers: ["Auto-Submitted: auto-replied"], body: "x".repeat(600) });
    const d = await run(raw, ["helpdesk@agents.example.net"], { config });
    expect(d[0]).toMatchObject({
      verdict: "refuse",
      reason: "message-too-large",
      proven: false,
      notify: false,
    });
  });

  it("a header block we cannot read is refused and never notified", async () => {
    const raw = Buffer.concat([
      Buffer.from("From: alice@example.com\r\nSubject: a\rb\r\n"),
      Buffer.from("\r\nbody\r\n"),
    ]);
    const d = await run(raw, ["helpdesk@agents.example.net"]);
    expect(d[0]).toMatchObject({ verdict: "refuse", reason: "header-malformed", notify: false });
  });

  describe("G2: addressed, once (the signer must have named the agent in a signed To or Cc)", () => {
    const helpdesk = ["helpdesk@agents.example.net"];
    const signedFor = (to: string, extra: string[] = [], headerList?: string[]) =>
      signWith(keys, "rsa2048", buildMessage({ to, headers: extra }), {
        domain: "example.com",
        ...(headerList ? { headers: headerList } : {}),
      });

    it("a mail signed for someone else and replayed to the agent is refused as not-addressed, and notified", async () => {
      const d = await run(await signedFor("mallory@evil.example"), helpdesk);
      expect(d[0]).toMatchObject({ verdict: "refuse", reason: "not-addressed", proven: true, notify: true });
    });

    // Outlook.com and Exchange Online sign exactly these (docs/gate.md's provider table).
    const MICROSOFT = ["from", "date", "subject", "message-id", "content-type", "mime-version"];
    // iCloud signs To but not Cc or threading.
    const ICLOUD = ["from", "to", "subject", "date", "message-id", "mime-version", "content-type"];

    it("a To the signature does not cover names the agent by the envelope: accepted, addressing envelope", async () => {
      const unsignedTo = await signedFor("helpdesk@agents.example.net", [], MICROSOFT);
      expect((await run(unsignedTo, helpdesk))[0]).toMatchObject({
        verdict: "accept",
        addressing: { kind: "envelope", field: "to" },
      });
      const prepended = Buffer.concat([
        Buffer.from("To: helpdesk@agents.example.net\r\n"),
        await signedFor("mallory@evil.example", [], ["from", "to", "subject"]),
      ]);
      // a second To is never read at all (single-instance fields)
      expect((await run(prepended, helpdesk))[0]).toMatchObject({
        verdict: "refuse",
        reason: "header-duplicated",
        detail: "to",
        notify: false,
      });
    });

    it("envelope addressing needs a signed Date within an hour of arrival", async () => {
      const unsignedTo = await signedFor("helpdesk@agents.example.net", [], MICROSOFT);
      // the message's Date is 2026-11-29T12:00:00Z
      const late = new Date("2026-11-29T13:00:01Z");
      expect((await run(unsignedTo, helpdesk, { now: late }))[0]).toMatchObject({
        verdict: "refuse",
        reason: "not-addressed",
        detail: "date-stale",
        notify: true,
      });
      const inTime = new Date("2026-11-29T12:59:00Z");
      expect((await run(unsignedTo, helpdesk, { now: inTime }))[0]?.verdict).toBe("accept");
      const dateUnsigned = await signedFor("helpdesk@agents.example.net", [], ["from", "subject"]);
      expect((await run(dateUnsigned, helpdesk))[0]).toMatchObject({
        reason: "not-addressed",
        detail: "date-unsigned",
      });
    });

    it("a signed To naming someone else is the signer's word: an unsigned Cc naming the agent counts only when the signature covers no Cc", async () => {
      // iCloud: To signed (mallory), Cc unsigned naming the agent: addressed by the envelope, narrowed
      const icloud = await signedFor("bob@example.com", ["Cc: helpdesk@agents.example.net"], ICLOUD);
      expect((await run(icloud, helpdesk))[0]).toMatchObject({
        verdict: "accept",
        addressing: { kind: "envelope", field: "cc" },
      });
      // Gmail signs both: a signed To and Cc that do not name the agent are refused, as before
      const gmail = await signedFor("mallory@evil.example", ["Cc: bob@example.com"]);
      expect((await run(gmail, helpdesk))[0]?.reason).toBe("not-addressed");
    });

    it("an agent that requires signed addressing refuses envelope addressing", async () => {
      const a = admin({ agents: [agent("helpdesk@agents.example.net", { requireSignedAddressing: true })] });
      const unsignedTo = await signedFor("helpdesk@agents.example.net", [], MICROSOFT);
      expect((await run(unsignedTo, helpdesk, { admin: a }))[0]).toMatchObject({
        reason: "not-addressed",
        detail: "signed-addressing-required",
      });
      const signedTo = await signedFor("helpdesk@agents.example.net");
      expect((await run(signedTo, helpdesk, { admin: a }))[0]).toMatchObject({
        verdict: "accept",
        addressing: { kind: "signed" },
      });
    });

    describe("a reply to the agent's own mail, by an unsigned In-Reply-To", () => {
      const SES_ID = "0100019a-0000-4000-8000-000000000001@email.amazonses.com";
      const sentTo =
        (to: string[], over: Partial<{ subject: string; sentAt: string }> = {}): SentMailLookup =>
        async (agentAddress, ids) =>
          agentAddress === "helpdesk@agents.example.net" && ids.includes(SES_ID)
            ? [
                {
                  messageId: SES_ID,
                  threadId: "thread-1",
                  to,
                  subject: over.subject ?? "Re: Quarterly numbers",
                  sentAt: over.sentAt ?? "2026-11-29T11:00:00.000Z",
                },
              ]
            : [];
      // an Outlook reply: In-Reply-To unsigned, the agent nowhere in To/Cc (a forwarded reply, say)
      const reply = (subject = "RE: Quarterly numbers") =>
        signWith(
          keys,
          "rsa2048",
          buildMessage({ to: "someone@example.com", subject, headers: [`In-Reply-To: <${SES_ID}>`] }),
          { domain: "example.com", headers: MICROSOFT },
        );

      it("joins when it names a Message-ID the agent sent to this sender, with the subject and a later date", async () => {
        const [d] = await run(await reply(), helpdesk, { sentMail: sentTo(["alice@example.com"]) });
        expect(d).toMatchObject({
          verdict: "accept",
          addressing: { kind: "reply" },
          ownMail: { messageId: SES_ID, threadId: "thread-1" },
        });
      });

      it("an iCloud reply (To signed, threading not) is addressed by its signature and still threaded by the match", async () => {
        const icloudReply = await signWith(
          keys,
          "rsa2048",
          buildMessage({ subject: "Re: Quarterly numbers", headers: [`In-Reply-To: <${SES_ID}>`] }),
          { domain: "example.com", headers: ICLOUD },
        );
        const [d] = await run(icloudReply, helpdesk, { sentMail: sentTo(["alice@example.com"]) });
        expect(d).toMatchObject({
          verdict: "accept",
          addressing: { kind: "signed" },
          ownMail: { messageId: SES_ID, threadId: "thread-1" },
        });
      });

      it("does not when the sent mail went to someone else, the subject differs or the date is earlier", async () => {
        const cases: SentMailLookup[] = [
          sentTo(["bob@example.com"]),
          sentTo(["alice@example.com"], { subject: "Re: Something else" }),
          // written 16 minutes before the send: more than the 15 minutes of clock skew tolerated
          sentTo(["alice@example.com"], { sentAt: "2026-11-29T12:16:00.000Z" }),
          async () => [],
        ];
        for (const sentMail of cases) {
          const [d] = await run(await reply(), helpdesk, { sentMail });
          expect(d).toMatchObject({ verdict: "refuse", reason: "not-addressed" });
        }
      });
    });

    const own = () => resolverFor(zoneFor(keys, ["example.com", "agents.example.net"]));
    it("mail proven to come from the agent itself is dropped as self-sender, never notified", async () => {
      for (const from of ["Help <helpdesk@agents.example.net>", "HelpDesk+loop@Agents.Example.NET"]) {
        const raw = await signWith(
          keys,
          "rsa2048",
          buildMessage({ from, to: "helpdesk@agents.example.net" }),
          {
            domain: "agents.example.net",
          },
        );
        const [d] = await run(raw, helpdesk, { resolver: own() });
        expect(d).toMatchObject({ verdict: "drop", reason: "self-sender", proven: true, notify: false });
      }
      // another agent of the same deployment is not the agent itself
      const sales = await signWith(
        keys,
        "rsa2048",
        buildMessage({ from: "sales@agents.example.net", to: "helpdesk@agents.example.net" }),
        { domain: "agents.example.net" },
      );
      expect((await run(sales, helpdesk, { resolver: own() }))[0]?.verdict).toBe("accept");
    });

    it("an encoded-word is display text, never the agent's address", async () => {
      const encoded = await signedFor("=?UTF-8?Q?Mallory_=3Chelpdesk=40agents.example.net=3E?=");
      expect((await run(encoded, helpdesk))[0]?.reason).toBe("not-addressed");
    });

    it("a signed Cc, a +tag alias and any case name the agent", async () => {
      const cc = await signedFor("bob@example.com", ["Cc: Helpdesk <helpdesk@agents.example.net>"]);
      expect((await run(cc, helpdesk))[0]).toMatchObject({
        verdict: "accept",
        addressing: { kind: "signed" },
      });
      const alias = await signedFor("Helpdesk+Billing@Agents.Example.NET");
      expect((await run(alias, helpdesk))[0]?.verdict).toBe("accept");
    });

    it("a display name holding the agent's address is not the agent", async () => {
      const raw = await signedFor('"helpdesk@agents.example.net" <mallory@evil.example>');
      expect((await run(raw, helpdesk))[0]?.reason).toBe("not-addressed");
    });

    it("an agent that opts in to Bcc delivery accepts it", async () => {
      const a = admin({ agents: [agent("helpdesk@agents.example.net", { acceptBcc: true })] });
      expect((await run(await signedFor("bob@example.com"), helpdesk, { admin: a }))[0]?.verdict).toBe(
        "accept",
      );
    });
  });
});
