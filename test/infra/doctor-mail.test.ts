import {
  DescribeActiveReceiptRuleSetCommand,
  type DescribeActiveReceiptRuleSetCommandOutput,
  type ReceiptRule,
  SESServiceException,
} from "@aws-sdk/client-ses";
import {
  GetConfigurationSetCommand,
  GetEmailIdentityCommand,
  NotFoundException,
} from "@aws-sdk/client-sesv2";
import { describe, expect, it } from "vitest";
import { checkIdentities } from "../../cli/doctor/identity.ts";
import { checkMx } from "../../cli/doctor/mx.ts";
import type { DoctorContext } from "../../cli/doctor/ports.ts";
import { checkReceiptRules } from "../../cli/doctor/receipt-rules.ts";
import { parseConfig } from "../../shared/config/load.ts";
import { beforeDeploy, config, deployed, fakePorts, fixOf, META, only, when } from "./doctor-fakes.ts";

const postern: ReceiptRule = {
  Name: "postern-agents.example.com",
  Enabled: true,
  Recipients: ["agents.example.com"],
  Actions: [
    {
      S3Action: {
        BucketName: "postern-mail",
        ObjectKeyPrefix: "inbound/",
        TopicArn: "arn:aws:sns:eu-west-1:111111111111:Postern-Notifications",
      },
    },
  ],
};
const stopAll: ReceiptRule = {
  Name: "catch-all",
  Enabled: true,
  Actions: [{ StopAction: { Scope: "RuleSet" } }],
};
const active = (name: string | undefined, rules: ReceiptRule[] = []) =>
  when(DescribeActiveReceiptRuleSetCommand).reply(
    (): DescribeActiveReceiptRuleSetCommandOutput =>
      name ? { ...META, Metadata: { Name: name, CreatedTimestamp: new Date(0) }, Rules: rules } : { ...META },
  );
const createMode = (name = "postern") =>
  parseConfig({
    domains: ["agents.example.com"],
    models: [{ id: "s", provider: "scripted", script: "demo.json", egress: "internal" }],
    receiptRuleSet: { mode: "create", name },
  });
const rules = async (ctx: DoctorContext, answer = active("default-rule-set", [postern])) =>
  checkReceiptRules(ctx, fakePorts({ sesReceipt: [answer] }));

describe("doctor: the active receipt rule set against receiptRuleSet", () => {
  it("existing mode, deployed, our rule enabled in the active set: ok per domain", async () => {
    expect(await rules(deployed())).toEqual([
      {
        check: "receipt rule agents.example.com",
        status: "ok",
        detail: "postern-agents.example.com in default-rule-set (active)",
      },
    ]);
  });

  it("existing mode before the deploy, a rule of the stack's name already in the set: fails (a second stack?)", async () => {
    const c = only(await rules(beforeDeploy()), "receipt rule agents.example.com");
    expect(c).toMatchObject({
      status: "fail",
      detail:
        "default-rule-set already has a rule postern-agents.example.com: CloudFormation cannot create it, so the deploy fails",
    });
    expect(fixOf(c)).toMatch(
      /aws ses delete-receipt-rule --rule-set-name default-rule-set --rule-name postern-agents\.example\.com/,
    );
  });

  it("existing mode before the deploy, set active: ok; none active: fails, fix creates and activates it", async () => {
    expect(await rules(beforeDeploy(), active("default-rule-set", [stopAll]))).toHaveLength(1);
    expect((await rules(beforeDeploy(), active("default-rule-set")))[0]).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/adds one rule/),
    });
    const [none] = await rules(beforeDeploy(), active(undefined));
    expect(none).toMatchObject({
      status: "fail",
      detail: "no receipt rule set is active in eu-west-1: SES receives no mail here",
    });
    expect(fixOf(none)).toBe(
      "create and activate default-rule-set: `aws ses create-receipt-rule-set --rule-set-name default-rule-set && " +
        "aws ses set-active-receipt-rule-set --rule-set-name default-rule-set`",
    );
  });

  it("existing mode, another set active: fails, fix points the config at the active set", async () => {
    const [c] = await rules(deployed(), active("workmail-set", [stopAll]));
    expect(c?.detail).toBe(
      "the active set is workmail-set (1 rule(s)), Postern's rules are in default-rule-set: SES never runs them",
    );
    expect(fixOf(c)).toMatch(
      /^set "receiptRuleSet": \{"mode": "existing", "name": "workmail-set"\} in the config/,
    );
  });

  it("create mode before the deploy: none active is ok; another active set warns that it will stop receiving", async () => {
    const ctx = beforeDeploy({ config: createMode() });
    expect((await rules(ctx, active(undefined)))[0]).toMatchObject({ status: "ok" });
    const [c] = await rules(ctx, active("workmail-set", [stopAll]));
    expect(c).toMatchObject({
      status: "warn",
      detail:
        "the active set is workmail-set (1 rule(s)): create mode activates postern instead, and workmail-set's rules stop receiving",
    });
    expect(fixOf(c)).toMatch(/"mode": "existing", "name": "workmail-set"/);
  });

  it("create mode before the deploy, a set of that name already active: fails (CloudFormation cannot create it)", async () => {
    const [c] = await rules(beforeDeploy({ config: createMode() }), active("postern"));
    expect(c?.status).toBe("fail");
    expect(fixOf(c)).toMatch(/aws ses delete-receipt-rule-set --rule-set-name postern/);
  });

  it("create mode after the deploy, another set activated since: fails, fix re-activates ours", async () => {
    const [c] = await rules(deployed({ config: createMode() }), active("other"));
    expect(c?.detail).toMatch(/another set was activated after the deploy/);
    expect(fixOf(c)).toMatch(/^`aws ses set-active-receipt-rule-set --rule-set-name postern`/);
  });

  it("our rule disabled, or storing elsewhere, or without the notification: fails, deploy again", async () => {
    for (const broken of [
      { ...postern, Enabled: false },
      {
        ...postern,
        Actions: [{ S3Action: { BucketName: "someone-elses", ObjectKeyPrefix: "inbound/", TopicArn: "t" } }],
      },
      { ...postern, Actions: [{ S3Action: { BucketName: "postern-mail", ObjectKeyPrefix: "inbound/" } }] },
    ]) {
      const [c] = await rules(deployed(), active("default-rule-set", [broken]));
      expect(c?.status).toBe("fail");
      expect(fixOf(c)).toMatch(/^deploy again: the stack owns that rule/);
    }
  });

  it("a rule with a Stop action before ours fails; after ours it does not matter", async () => {
    const [before] = await rules(deployed(), active("default-rule-set", [stopAll, postern]));
    expect(before?.detail).toBe(
      "rule catch-all comes before postern-agents.example.com and stops the rule set for agents.example.com: Postern never sees the mail",
    );
    expect(fixOf(before)).toMatch(/aws ses set-receipt-rule-position/);
    expect((await rules(deployed(), active("default-rule-set", [postern, stopAll])))[0]?.status).toBe("ok");
  });

  it("DescribeActiveReceiptRuleSet denied (SES v1 AccessDenied): a failed check naming the permission", async () => {
    const denied = new SESServiceException({
      name: "AccessDenied",
      $fault: "client",
      $metadata: { httpStatusCode: 403 },
      message: "User is not authorized to perform: ses:DescribeActiveReceiptRuleSet",
    });
    const [c] = await rules(deployed(), when(DescribeActiveReceiptRuleSetCommand).throws(denied));
    expect(c).toMatchObject({ check: "receipt rule set", status: "fail" });
    expect(fixOf(c)).toMatch(/^allow ses:DescribeActiveReceiptRuleSet/);
  });
});

const notFound = () =>
  when(GetEmailIdentityCommand).throws(
    new NotFoundException({
      message: "Email identity agents.example.com does not exist.",
      $metadata: { httpStatusCode: 404 },
    }),
  );
const identity = (dkim: "PENDING" | "FAILED" | "SUCCESS", mailFrom: "PENDING" | "SUCCESS" = "SUCCESS") =>
  when(GetEmailIdentityCommand).reply(() => ({
    ...META,
    IdentityType: "DOMAIN",
    VerifiedForSendingStatus: dkim === "SUCCESS",
    DkimAttributes: { SigningEnabled: true, Status: dkim, Tokens: ["a", "b", "c"] },
    MailFromAttributes: {
      MailFromDomain: "bounce.agents.example.com",
      MailFromDomainStatus: mailFrom,
      BehaviorOnMxFailure: "USE_DEFAULT_VALUE",
    },
  }));

describe("doctor: SES identities (DKIM, MAIL FROM)", () => {
  it("verified with DKIM: ok", async () => {
    expect(await checkIdentities(deployed(), fakePorts())).toEqual([
      { check: "identity agents.example.com", status: "ok", detail: "verified, DKIM SUCCESS" },
    ]);
  });

  it("DKIM PENDING fails with the CNAMEs to add; FAILED says SES stopped looking", async () => {
    const [pending] = await checkIdentities(deployed(), fakePorts({ ses: [identity("PENDING")] }));
    expect(pending).toMatchObject({ status: "fail", detail: "not verified for sending (DKIM PENDING)" });
    expect(fixOf(pending)).toMatch(
      /^add the three DKIM CNAME records from the stack outputs \(Dns<n>x1..3\)/,
    );
    const [failed] = await checkIdentities(deployed(), fakePorts({ ses: [identity("FAILED")] }));
    expect(fixOf(failed)).toMatch(/^SES stopped looking for the DKIM CNAMEs/);
  });

  it("MAIL FROM pending: warns with the bounce MX and SPF records", async () => {
    const c = only(
      await checkIdentities(deployed(), fakePorts({ ses: [identity("SUCCESS", "PENDING")] })),
      "mail-from agents.example.com",
    );
    expect(c.status).toBe("warn");
    expect(fixOf(c)).toBe(
      "add `bounce.agents.example.com MX 10 feedback-smtp.eu-west-1.amazonses.com` and " +
        '`bounce.agents.example.com TXT "v=spf1 include:amazonses.com ~all"` (stack outputs Dns<n>x4, Dns<n>x5)',
    );
  });

  it("after the deploy, no identity (NotFoundException): fails, check the region", async () => {
    const [c] = await checkIdentities(deployed(), fakePorts({ ses: [notFound()] }));
    expect(c).toMatchObject({
      status: "fail",
      detail: "no SES identity for agents.example.com in eu-west-1",
    });
    expect(fixOf(c)).toMatch(/AWS_REGION is the stack's region/);
  });

  it("before the deploy, a configuration set of the config's name already exists: fails; absent: ok", async () => {
    const named = parseConfig({
      domains: ["agents.example.com"],
      models: [{ id: "s", provider: "scripted", script: "demo.json", egress: "internal" }],
      outbound: { configurationSet: "postern" },
    });
    const exists = when(GetConfigurationSetCommand).reply((input) => ({
      ...META,
      ConfigurationSetName: input.ConfigurationSetName,
      SendingOptions: { SendingEnabled: true },
    }));
    const taken = only(
      await checkIdentities(beforeDeploy({ config: named }), fakePorts({ ses: [exists, notFound()] })),
      "configuration set postern",
    );
    expect(taken).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/already exists in SES here/),
    });
    expect(fixOf(taken)).toMatch(/^name another one in "outbound"/);
    const absent = when(GetConfigurationSetCommand).throws(
      new NotFoundException({ message: "Configuration set <postern> does not exist.", $metadata: {} }),
    );
    const free = await checkIdentities(
      beforeDeploy({ config: named }),
      fakePorts({ ses: [absent, notFound()] }),
    );
    expect(free.map((c) => c.status)).toEqual(["ok", "ok"]);
  });

  it("before the deploy: no identity is ok; an existing one fails (the stack could not create it)", async () => {
    expect((await checkIdentities(beforeDeploy(), fakePorts({ ses: [notFound()] })))[0]).toMatchObject({
      status: "ok",
    });
    const [c] = await checkIdentities(beforeDeploy(), fakePorts());
    expect(c?.detail).toMatch(/already an SES identity here: CloudFormation cannot create it/);
    expect(fixOf(c)).toMatch(/aws sesv2 delete-email-identity --email-identity agents\.example\.com/);
  });
});

describe("doctor: MX records", () => {
  const mx = (records: { exchange: string; priority: number }[] | Error) =>
    checkMx(
      deployed(),
      fakePorts({
        mx: async () => {
          if (records instanceof Error) throw records;
          return records;
        },
      }),
    );

  it("SES inbound first: ok", async () => {
    expect(await mx([{ exchange: "inbound-smtp.eu-west-1.amazonaws.com.", priority: 10 }])).toEqual([
      { check: "mx agents.example.com", status: "ok", detail: "inbound-smtp.eu-west-1.amazonaws.com" },
    ]);
  });

  it("MX elsewhere (or SES in another region): fails, fix names the record and its stack output", async () => {
    const [c] = await mx([{ exchange: "inbound-smtp.us-east-1.amazonaws.com", priority: 10 }]);
    expect(c?.status).toBe("fail");
    expect(fixOf(c)).toMatch(
      /^add `agents\.example\.com MX 10 inbound-smtp\.eu-west-1\.amazonaws\.com` .*\(stack output Dns0x0\)/,
    );
  });

  it("another MX with a lower preference: warns", async () => {
    const [c] = await mx([
      { exchange: "inbound-smtp.eu-west-1.amazonaws.com", priority: 10 },
      { exchange: "backup.example", priority: 5 },
    ]);
    expect(c).toMatchObject({
      status: "warn",
      detail: "backup.example (preference 5) comes before SES: senders try it first",
    });
  });

  it("no MX at all (ENOTFOUND): fails with the record to add", async () => {
    const [c] = await mx(
      Object.assign(new Error("queryMx ENOTFOUND agents.example.com"), { code: "ENOTFOUND" }),
    );
    expect(c).toMatchObject({ status: "fail", detail: "no MX record (ENOTFOUND)" });
  });

  it("the SES host is the context's region: SES in another region is not ours", async () => {
    const [c] = await checkMx(deployed({ region: "us-east-1" }), fakePorts());
    expect(c?.detail).toMatch(/^no MX record points at inbound-smtp\.us-east-1\.amazonaws\.com/);
  });

  it("before the deploy: no MX yet is ok; an MX elsewhere warns that the domain's mail would move", async () => {
    const none = Object.assign(new Error("queryMx ENODATA agents.example.com"), { code: "ENODATA" });
    const fresh = await checkMx(beforeDeploy(), fakePorts({ mx: async () => Promise.reject(none) }));
    expect(fresh[0]).toMatchObject({ status: "ok", detail: "no MX yet: add it after the deploy" });
    const [busy] = await checkMx(
      beforeDeploy({ config }),
      fakePorts({ mx: async () => [{ exchange: "aspmx.l.google.com", priority: 1 }] }),
    );
    expect(busy?.detail).toBe(
      "agents.example.com already receives mail (MX 1 aspmx.l.google.com): pointing it at SES moves all of that mail to Postern",
    );
    expect(fixOf(busy)).toMatch(/subdomain of their own/);
  });
});
