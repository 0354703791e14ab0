import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkMessage } from "../../../cli/mail-check.ts";
import type { ZoneResolver } from "../../../shared/runtime/zone-resolver.ts";
import { admin, agent, config, NOW } from "../../fakes/builders.ts";
import { type TestKeys, testKeys } from "../../helpers/dkim-test-keys.ts";
import { EXPECTED } from "../../provider-matrix/expected.ts";
import { headerNames, isListOnly, loadShapes, type ProviderShape } from "../../provider-matrix/fixtures.ts";
import { type Cell, FLOWS, type Flow } from "../../provider-matrix/flows.ts";
import { LIST_AGENT, mailFor, providerZone, runCell } from "../../provider-matrix/run.ts";
import { cellText, providerTables, withProviderTables } from "../../provider-matrix/table.ts";

/**
 * Mail the world actually sends (issue 30, item 7): each big sender's signed-header shape, as seen in public
 * archives (test/fixtures/provider-shapes), re-signed with a test key and run through verify in six flows. The
 * observed matrix must be the expected one (test/provider-matrix/expected.ts), and docs/gate.md's tables must be
 * the ones written from it.
 */

const GATE_DOC = join(import.meta.dirname, "../../../docs/gate.md");

let keys: TestKeys;
let shapes: ProviderShape[];
let resolver: ZoneResolver;
const observed: Record<string, Record<Flow, Cell>> = {};

beforeAll(async () => {
  keys = await testKeys();
  shapes = loadShapes();
  resolver = providerZone(keys, shapes);
  for (const p of shapes) {
    const row = {} as Record<Flow, Cell>;
    for (const flow of FLOWS) row[flow] = await runCell(keys, resolver, p, flow, shapes);
    observed[p.id] = row;
  }
});

describe("provider × flow", () => {
  it("every cell ends as the expected table says", () => {
    expect(observed).toEqual(EXPECTED);
  });

  it("docs/gate.md holds the tables written from the corpus and the expected matrix (npm run docs:gate)", () => {
    const doc = readFileSync(GATE_DOC, "utf8");
    expect(doc).toBe(withProviderTables(doc, providerTables(shapes)));
  });

  it("a reply to the agent from a sender whose signature covers neither To nor threading joins the agent's thread", () => {
    // the reason Exchange Online's replies are worth matching at all: the run then sees the conversation
    expect(observed["exchange-online"]?.reply).toMatchObject({
      addressing: "reply",
      threadedBy: "own-message-id",
      joined: true,
    });
    expect(observed.gmail?.reply).toMatchObject({ addressing: "signed", threadedBy: "signed", joined: true });
  });
});

describe("the corpus", () => {
  it("a shape the corpus lacks is a cell that says so, never a guess", async () => {
    const gmail = shapes.find((p) => p.id === "gmail");
    if (!gmail || isListOnly(gmail)) throw new TypeError("no gmail fixture");
    const unseen = { ...gmail, reply: { notSeen: "no reply was found" } };
    const cell = await runCell(keys, resolver, unseen, "reply", shapes);
    expect(cell).toEqual({ verdict: "not-seen" });
    expect(cellText(cell)).toBe("shape not seen");
  });

  it("every h= as seen names From (no signer that proves a sender leaves it out)", () => {
    for (const p of shapes) {
      if (isListOnly(p)) continue;
      for (const s of [p.fresh, p.reply, p.cc]) {
        if (s && "h" in s) expect(headerNames(s.h).map((n) => n.toLowerCase())).toContain("from");
      }
    }
  });

  it("every shape says where it was seen, or why it was not", () => {
    for (const p of shapes) {
      const said = isListOnly(p)
        ? [p.list.seen]
        : [p.fresh, p.reply, p.cc].flatMap((s) => (s ? ["h" in s ? s.seen : s.notSeen] : []));
      for (const text of said) expect(text.length).toBeGreaterThan(20);
    }
  });
});

describe("postern check on one mail per provider, as the audit ran it", () => {
  it("gives the matrix's verdict and names the fields the proving signature covers", async () => {
    const cfg = config();
    const adm = admin({
      agents: [agent(), agent({ address: LIST_AGENT, name: "Lists", acceptListMail: true })],
    });
    for (const p of shapes) {
      const flow: Flow = isListOnly(p) ? "list" : "fresh";
      const mail = mailFor(keys, p, flow, shapes);
      if (mail === null || mail === "n/a") throw new TypeError(`${p.id}: no ${flow} mail`);
      const result = await checkMessage({
        raw: mail.raw,
        rcpt: mail.rcpt,
        mailFrom: mail.sender.from,
        config: cfg,
        admin: adm,
        resolver,
        now: NOW,
        show: false,
      });
      const cell = EXPECTED[p.id]?.[flow];
      if (cell?.verdict === "accept") {
        // `check` reads no sent mail, so it shows what verify decides for new mail
        expect(result, p.id).toMatchObject({ verdict: "accept", addressing: cell.addressing });
        const h =
          isListOnly(p) || !("h" in p.fresh) ? [] : headerNames(p.fresh.h).map((n) => n.toLowerCase());
        expect(new Set(result.signedHeaders), p.id).toEqual(new Set(h));
      } else {
        expect(result, p.id).toMatchObject({
          verdict: cell?.verdict,
          reason: cell && "reason" in cell ? cell.reason : "",
        });
      }
    }
  });
});
