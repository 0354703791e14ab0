// judgeSignature on hand-made verifier results: each guard, including the ones that back up a
// check mailauth also makes, must refuse on its own.

import type { DKIMResult } from "mailauth";
import { describe, expect, it } from "vitest";
import {
  type DkimRefusal,
  judgeSignature,
  nearestMiss,
  parseTagList,
} from "../../../shared/gate/dkim-checks.ts";

const TAGS = "v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=sel; h=from:subject; bh=BH; b=SIG AB";
const passing = (over: Partial<DKIMResult> = {}, status: Partial<DKIMResult["status"]> = {}): DKIMResult =>
  ({
    signingDomain: "example.com",
    selector: "sel",
    signature: "SIGAB",
    algo: "rsa-sha256",
    bodyHash: "BH",
    bodyHashExpecting: "BH",
    canonBodyLengthLimited: false,
    modulusLength: 2048,
    info: "",
    ...over,
    status: { result: "pass", ...status },
  }) as DKIMResult;
const judge = (tags: string, result: DKIMResult = passing(), min = 1024) =>
  judgeSignature(parseTagList(tags), result, "example.com", min);
const reason = (tags: string, result: DKIMResult = passing(), min = 1024) => {
  const v = judge(tags, result, min);
  return v.ok ? "accepted" : v.reason;
};

describe("parseTagList", () => {
  it("reads tag-specs as written, trimming FWS and keeping name case", () => {
    const tags = parseTagList(" v=1;\r\n a = rsa-sha256 ;L=5; novalue; h=from :\r\n to;");
    expect([...tags.entries()]).toEqual([
      ["v", "1"],
      ["a", "rsa-sha256"],
      ["L", "5"],
      ["h", "from :\r\n to"],
    ]);
  });
});

describe("judgeSignature", () => {
  it("accepts a passing aligned signature and reports it", () => {
    expect(judge(TAGS)).toEqual({
      ok: true,
      signature: {
        id: expect.stringMatching(/^[0-9a-f]{64}$/),
        domain: "example.com",
        selector: "sel",
        algorithm: "rsa-sha256",
        keyBits: 2048,
        signedHeaders: ["from", "subject"],
      },
    });
  });

  it("accepts an upper-case d= and A= value, compared case-insensitively", () => {
    expect(reason(TAGS.replace("d=example.com", "d=EXAMPLE.com").replace("rsa-sha256", "RSA-SHA256"))).toBe(
      "accepted",
    );
  });

  it.each<[string, string, DKIMResult | undefined, DkimRefusal]>([
    ["a result for another signature", TAGS, passing({ signature: "OTHER" }), "dkim-error"],
    ["a result without a signature", TAGS, passing({ signature: undefined }), "dkim-error"],
    ["a sub-domain d=", TAGS.replace("d=example.com", "d=mail.example.com"), undefined, "dkim-misaligned"],
    ["a parent d=", TAGS.replace("d=example.com", "d=com"), undefined, "dkim-misaligned"],
    ["no d=", TAGS.replace("d=example.com;", ""), undefined, "dkim-misaligned"],
    ["a full-width d=", TAGS.replace("d=example.com", "d=ｅxample.com"), undefined, "dkim-misaligned"],
    ["an l= tag", `${TAGS}; l=10`, undefined, "dkim-length-limited"],
    ["an L= tag", `${TAGS}; L=10`, undefined, "dkim-length-limited"],
    [
      "a length limit only the verifier saw",
      TAGS,
      passing({ canonBodyLengthLimited: true }),
      "dkim-length-limited",
    ],
    ["rsa-sha1", TAGS.replace("rsa-sha256", "rsa-sha1"), undefined, "dkim-weak-algorithm"],
    ["an unknown algorithm", TAGS.replace("rsa-sha256", "rsa-md5"), undefined, "dkim-weak-algorithm"],
    ["no a=", TAGS.replace("a=rsa-sha256;", ""), undefined, "dkim-weak-algorithm"],
    ["h= without from", TAGS.replace("h=from:subject", "h=subject:to"), undefined, "dkim-from-unsigned"],
    [
      "h= with from-like names",
      TAGS.replace("h=from:subject", "h=x-from:from-x:sender"),
      undefined,
      "dkim-from-unsigned",
    ],
    ["no h=", TAGS.replace("h=from:subject;", ""), undefined, "dkim-from-unsigned"],
    ["temperror", TAGS, passing({}, { result: "temperror" }), "dkim-temperror"],
    ["temperr", TAGS, passing({}, { result: "temperr" }), "dkim-temperror"],
    [
      "a fail with another body hash",
      TAGS,
      passing({ bodyHash: "OTHER" }, { result: "fail" }),
      "dkim-body-modified",
    ],
    ["a fail with the same body hash", TAGS, passing({}, { result: "fail" }), "dkim-fail"],
    ["policy", TAGS, passing({}, { result: "policy" }), "dkim-policy"],
    ["neutral", TAGS, passing({}, { result: "neutral" }), "dkim-neutral"],
    ["none", TAGS, passing({}, { result: "none" }), "dkim-none"],
    ["permerror", TAGS, passing({}, { result: "permerror" }), "dkim-error"],
    ["a testing key", TAGS, passing({}, { testing: true }), "dkim-testing-key"],
    ["a 1023-bit key", TAGS, passing({ modulusLength: 1023 }), "dkim-weak-key"],
    ["an RSA key of unknown size", TAGS, passing({ modulusLength: undefined }), "dkim-weak-key"],
  ])("refuses %s", (_name, tags, result, expected) => {
    expect(reason(tags, result)).toBe(expected);
  });

  it("takes the key floor from the operator", () => {
    expect(reason(TAGS, passing({ modulusLength: 1024 }))).toBe("accepted");
    expect(reason(TAGS, passing({ modulusLength: 2047 }), 2048)).toBe("dkim-weak-key");
    expect(reason(TAGS, passing({ modulusLength: 2048 }), 2048)).toBe("accepted");
  });

  it("needs no key size for ed25519", () => {
    const v = judge(TAGS.replace("rsa-sha256", "ed25519-sha256"), passing({ modulusLength: undefined }));
    expect(v).toMatchObject({ ok: true, signature: { algorithm: "ed25519-sha256" } });
    expect(v.ok && "keyBits" in v.signature).toBe(false);
  });
});

describe("nearestMiss", () => {
  it.each<[DkimRefusal[], DkimRefusal]>([
    [["dkim-misaligned", "dkim-temperror", "dkim-weak-key"], "dkim-temperror"],
    [["dkim-misaligned", "dkim-weak-key", "dkim-body-modified"], "dkim-weak-key"],
    [["dkim-testing-key", "dkim-body-modified"], "dkim-testing-key"],
    [["dkim-fail", "dkim-body-modified"], "dkim-body-modified"],
    [["dkim-policy", "dkim-fail"], "dkim-fail"],
    [["dkim-neutral", "dkim-policy"], "dkim-policy"],
    [["dkim-error", "dkim-neutral"], "dkim-neutral"],
    [["dkim-from-unsigned", "dkim-error"], "dkim-error"],
    [["dkim-weak-algorithm", "dkim-from-unsigned"], "dkim-from-unsigned"],
    [["dkim-length-limited", "dkim-weak-algorithm"], "dkim-weak-algorithm"],
    [["dkim-misaligned", "dkim-length-limited"], "dkim-length-limited"],
    [["dkim-none", "dkim-misaligned"], "dkim-misaligned"],
    [["dkim-none"], "dkim-none"],
    [[], "dkim-none"],
  ])("%j → %s", (reasons, expected) => {
    expect(nearestMiss(reasons)).toBe(expected);
  });
});
