// A refusal's detail reaches the operator (G19: no silent failure): verify's log line, the inbound record and the
// console's Refused mail page all say which signer a misaligned signature named and what fixes it.

import { describe, expect, it } from "vitest";
import { refusalsView } from "../../../console/views/refusals.ts";
import { AGENT, signedMail } from "../../fakes/builders.ts";
import { verifyWorld } from "../../helpers/verify-world.ts";

describe("a dkim-misaligned refusal's detail", () => {
  it("is logged, kept on the inbound record and shown, escaped, on the Refused mail page", async () => {
    // alice@example.com's mail signed by another domain (its provider's, say)
    const { raw, resolver } = await signedMail({}, "mail-provider.example");
    const w = verifyWorld({ resolver });
    const [summary] = await w.receive(raw);
    expect(summary).toMatchObject({ verdict: "refuse", reason: "dkim-misaligned" });
    const detail =
      "signed by mail-provider.example, not example.com: if example.com sends through mail-provider.example, " +
      "its admin must turn on DKIM signing for example.com";
    const line = w.logger.lines.find((l) => l.message === "inbound decision");
    expect(line?.extra).toMatchObject({ reason: "dkim-misaligned", detail });
    const record = await w.inbound.get("ses-1", AGENT);
    expect(record?.detail).toBe(detail);
    const page = String(
      refusalsView(
        {
          items: [{ ...(record as NonNullable<typeof record>), refusalAt: "2026-11-29T12:00:00.000Z" }],
          next: null,
        },
        undefined,
        {
          canDownload: false,
        },
      ),
    );
    expect(page).toContain("signed by mail-provider.example, not example.com: if example.com sends through");
  });
});
