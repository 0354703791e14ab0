import { GetSendStatisticsCommand } from "@aws-sdk/client-ses";
import { ListSuppressedDestinationsCommand } from "@aws-sdk/client-sesv2";
import { describe, expect, it } from "vitest";
import { checkDmarc } from "../../cli/doctor/dmarc.ts";
import { checkSesRejections } from "../../cli/doctor/ses-rejections.ts";
import type { Zone } from "../../shared/runtime/zone-resolver.ts";
import { deployed, fakePorts, fixOf, META, NOW, only, when } from "./doctor-fakes.ts";

const dmarc = async (zone: Zone) => {
  const p = fakePorts({ zone });
  return { check: only(await checkDmarc(deployed(), p), "dmarc agents.example.com"), asked: p.dns.calls };
};

describe("doctor: DMARC on the agents' domain or its parent", () => {
  it("the domain's own quarantine policy: ok, asked once", async () => {
    const { check, asked } = await dmarc({
      "_dmarc.agents.example.com": { TXT: [["v=DMARC1; p=quarantine"]] },
    });
    expect(check).toEqual({
      check: "dmarc agents.example.com",
      status: "ok",
      detail: "_dmarc.agents.example.com: quarantine",
    });
    expect(asked).toEqual([{ name: "_dmarc.agents.example.com", rrtype: "TXT" }]);
  });

  it("no record at the domain: the parent's sp= governs the subdomain; TXT chunks are joined", async () => {
    const { check, asked } = await dmarc({
      "_dmarc.example.com": {
        TXT: [["v=spf1 -all"], ["v=DMARC1; p=none; ", "sp=reject; rua=mailto:d@example.com"]],
      },
    });
    expect(check).toMatchObject({ status: "ok", detail: "_dmarc.example.com (the parent's sp=): reject" });
    expect(asked.map((c) => c.name)).toEqual(["_dmarc.agents.example.com", "_dmarc.example.com"]);
  });

  it("the parent's p=none without sp= warns: forged agent mail is delivered", async () => {
    const { check } = await dmarc({ "_dmarc.example.com": { TXT: [["v=DMARC1; p=none"]] } });
    expect(check).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/the parent's p=\) says "none"/),
    });
    expect(fixOf(check)).toContain('_dmarc.agents.example.com TXT "v=DMARC1; p=quarantine"');
    expect(fixOf(check)).toBe(
      'add `_dmarc.agents.example.com TXT "v=DMARC1; p=quarantine"` (stack output Dns0x6); or set sp=quarantine at _dmarc.example.com',
    );
  });

  it("none anywhere warns, naming the stack output; the walk stops before the top-level domain", async () => {
    const { check, asked } = await dmarc({});
    expect(check).toMatchObject({ status: "warn", detail: expect.stringMatching(/^no DMARC record/) });
    expect(fixOf(check)).toContain("stack output Dns0x6");
    expect(asked.map((c) => c.name)).toEqual(["_dmarc.agents.example.com", "_dmarc.example.com"]);
  });

  it("two DMARC records at one name fail: receivers apply none", async () => {
    const { check } = await dmarc({
      "_dmarc.agents.example.com": { TXT: [["v=DMARC1; p=reject"], ["v=DMARC1; p=none"]] },
    });
    expect(check).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/more than one DMARC record/),
    });
  });

  it("a DNS failure warns with its code, and does not walk past it", async () => {
    const { check, asked } = await dmarc({ "_dmarc.agents.example.com": { error: "ESERVFAIL" } });
    expect(check).toMatchObject({
      status: "warn",
      detail: "looking up _dmarc.agents.example.com failed (ESERVFAIL)",
    });
    expect(asked).toHaveLength(1);
  });
});

describe("doctor: recent SES rejections and suppressed addresses", () => {
  it("a quiet fortnight: ok, with the counts", async () => {
    const checks = await checkSesRejections(deployed(), fakePorts());
    expect(checks).toEqual([
      {
        check: "ses rejections",
        status: "ok",
        detail: "last 14 days in eu-west-1: 15 sent, 1 bounced, 0 complaint(s), 0 rejected",
      },
      { check: "ses suppression", status: "ok", detail: "no address suppressed in the last 7 days" },
    ]);
  });

  it("messages SES rejected warn", async () => {
    const stats = when(GetSendStatisticsCommand).reply(() => ({
      ...META,
      SendDataPoints: [
        {
          Timestamp: new Date("2026-11-29T08:00:00Z"),
          DeliveryAttempts: 4,
          Bounces: 0,
          Complaints: 0,
          Rejects: 2,
        },
      ],
    }));
    const c = only(
      await checkSesRejections(deployed(), fakePorts({ sesReceipt: [stats] })),
      "ses rejections",
    );
    expect(c).toMatchObject({ status: "warn", detail: expect.stringMatching(/2 rejected$/) });
  });

  it("addresses suppressed this week warn, counted by reason, read from the doctor's clock", async () => {
    const list = when(ListSuppressedDestinationsCommand).reply(() => ({
      ...META,
      SuppressedDestinationSummaries: [
        {
          EmailAddress: "gone@customer.example",
          Reason: "BOUNCE",
          LastUpdateTime: new Date("2026-11-28T00:00:00Z"),
        },
        {
          EmailAddress: "typo@custmer.example",
          Reason: "BOUNCE",
          LastUpdateTime: new Date("2026-11-29T00:00:00Z"),
        },
        {
          EmailAddress: "angry@customer.example",
          Reason: "COMPLAINT",
          LastUpdateTime: new Date("2026-11-30T00:00:00Z"),
        },
      ],
    }));
    const p = fakePorts({ ses: [list] });
    const c = only(await checkSesRejections(deployed(), p), "ses suppression");
    expect(c).toMatchObject({
      status: "warn",
      detail:
        "3 address(es) suppressed in the last 7 days (2 BOUNCE, 1 COMPLAINT): SES accepts replies to them and never delivers",
    });
    expect(fixOf(c)).toContain("--start-date 2026-11-24");
    expect(p.calls.ses[0]?.input).toEqual({ StartDate: new Date(NOW.getTime() - 7 * 86_400_000) });
  });
});
