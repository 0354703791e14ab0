import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SesCapture, startSesCapture } from "../../cli/local/ses-capture.ts";
import { rewriteAsSes } from "../../cli/local/ses-header-rewrite.ts";
import { makeSendingSesClient, sesSender } from "../../shared/aws/ses-sender.ts";
import type { Resources } from "../../shared/config/resources.ts";
import { baseInput, composeAndParse } from "../unit/outbound/mail-helpers.ts";

/** The SESv2 adapter over loopback: the local capture endpoint, and a stub answering with SES error shapes. */

const resources = (ses: string): Resources => ({
  region: "eu-west-1",
  tables: {} as Resources["tables"],
  bucket: "b",
  queues: { verify: "", agentStep: "", outbound: "" },
  endpoints: { ses },
});

let dir: string;
let capture: SesCapture;
let stub: Server;
let stubUrl: string;
const stubHits: string[] = [];
let stubAnswer: { status: number; type: string } = { status: 500, type: "InternalFailure" };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "postern-ses-"));
  capture = await startSesCapture({ outboxDir: dir });
  stub = createServer((req, res) => {
    stubHits.push(req.url ?? "");
    req.resume();
    req.on("end", () => {
      res.writeHead(stubAnswer.status, {
        "content-type": "application/json",
        "x-amzn-errortype": stubAnswer.type,
      });
      res.end(JSON.stringify({ message: "stub" }));
    });
  });
  await new Promise<void>((r) => stub.listen(0, "127.0.0.1", () => r()));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await capture?.stop();
  await new Promise<void>((r) => (stub ? stub.close(() => r()) : r()));
  await rm(dir, { recursive: true, force: true });
});

describe("sesSender", () => {
  it("sends the raw bytes unchanged (SES writes only its Message-ID and Date), Bcc only in the Destination, with the configuration set", async () => {
    const { r } = await composeAndParse(
      baseInput({
        recipients: { to: ["a@example.com"], cc: ["c@example.com"], bcc: ["hidden@example.com"] },
      }),
    );
    const out = await sesSender(makeSendingSesClient(resources(capture.endpoint))).send({
      raw: r.raw,
      from: "helpdesk@agents.example.com",
      to: ["a@example.com"],
      cc: ["c@example.com"],
      bcc: ["hidden@example.com"],
      configurationSet: "postern-out",
    });
    if (out.kind !== "accepted") throw new Error(out.code);
    // Everything but the two fields SES owns, compared byte for byte.
    const rest = (b: Uint8Array) =>
      rewriteAsSes(Buffer.from(b), "x", "us-east-1", new Date(0))
        .toString("latin1")
        .split("\r\n")
        .slice(2)
        .join("\r\n");
    expect(rest(await readFile(join(dir, `${out.messageId}.eml`)))).toBe(rest(r.raw));
    const envelope = JSON.parse(await readFile(join(dir, `${out.messageId}.json`), "utf8"));
    expect(envelope).toMatchObject({
      fromEmailAddress: "helpdesk@agents.example.com",
      configurationSetName: "postern-out",
      destination: {
        ToAddresses: ["a@example.com"],
        CcAddresses: ["c@example.com"],
        BccAddresses: ["hidden@example.com"],
      },
    });
  });

  const send = () =>
    sesSender(makeSendingSesClient(resources(stubUrl))).send({
      raw: new TextEncoder().encode("Subject: x\r\n\r\nx"),
      from: "helpdesk@agents.example.com",
      to: ["a@example.com"],
      cc: [],
      bcc: [],
    });

  it.each([
    [429, "TooManyRequestsException", true],
    [400, "LimitExceededException", true],
    [400, "MessageRejected", false],
    [400, "MailFromDomainNotVerifiedException", false],
  ])(
    "a %i %s is a rejection (retryable: %s): SES answered, nothing was sent",
    async (status, type, retryable) => {
      stubAnswer = { status, type };
      // SES's own message comes along: it names the fix.
      expect(await send()).toEqual({ kind: "rejected", retryable, code: type, message: "stub" });
    },
  );

  it("a 5xx is rethrown (outcome unknown) after ONE attempt: SDK retries could send twice", async () => {
    stubAnswer = { status: 500, type: "InternalFailure" };
    const before = stubHits.length;
    await expect(send()).rejects.toThrow();
    expect(stubHits.length - before).toBe(1);
  });
});
