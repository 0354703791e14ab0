import { beforeAll, describe, expect, it } from "vitest";
import { AGENT } from "../../fakes/builders.ts";
import {
  buildMessage,
  type MessageParts,
  resolverFor,
  signWith,
  type TestKeys,
  testKeys,
  zoneFor,
} from "../../helpers/dkim-test-keys.ts";
import { verifyWorld } from "../../helpers/verify-world.ts";

/**
 * Verify records on the accepted message how its sender was proven (G2): the proving signature's domain and which
 * of To, Cc and the threading fields it covers. A plan that mail asks for shows it to the approver (G14), so a
 * stranger's request and the customer's own cannot look alike.
 */

let keys: TestKeys;
let resolver: ReturnType<typeof resolverFor>;
beforeAll(async () => {
  keys = await testKeys();
  resolver = resolverFor(zoneFor(keys, ["example.com"]));
});

async function stored(parts: MessageParts, headers: string[]) {
  const w = verifyWorld({ resolver });
  const raw = await signWith(keys, "rsa2048", buildMessage({ from: "Pat <pat@example.com>", ...parts }), {
    domain: "example.com",
    headers,
  });
  const [out] = await w.receive(raw);
  expect(out?.verdict).toBe("accept");
  const [message] = await w.messages.listByAgent(AGENT);
  return message;
}

const REPLY = ["In-Reply-To: <earlier@example.com>", "References: <earlier@example.com>"];

describe("how the sender was proven, on the stored message", () => {
  it("To, Cc and threading all signed", async () => {
    const m = await stored({ headers: ["Cc: sam@example.com", ...REPLY] }, [
      "from",
      "to",
      "cc",
      "subject",
      "date",
      "message-id",
      "in-reply-to",
      "references",
    ]);
    expect(m?.proof).toEqual({
      dkimDomain: "example.com",
      signed: { to: true, cc: true, threading: "signed" },
    });
  });

  it("Cc and threading carried but not signed: said so (the threading was read as absent)", async () => {
    const m = await stored({ headers: ["Cc: sam@example.com", ...REPLY] }, ["from", "to", "subject", "date"]);
    expect(m?.proof?.signed).toEqual({ to: true, cc: false, threading: "unsigned" });
  });

  it("a new conversation carries no threading fields: none", async () => {
    const m = await stored({}, ["from", "to", "subject", "date", "message-id"]);
    expect(m?.proof?.signed).toEqual({ to: true, cc: false, threading: "none" });
  });
});
