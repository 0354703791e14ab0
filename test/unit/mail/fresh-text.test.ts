import { describe, expect, it } from "vitest";
import { freshText } from "../../../shared/mail/fresh-text.ts";

/**
 * One test (or table) per separator rule of the plain-text walk (G14). Each reply puts the approver's line on top
 * and card text below the separator; the card text must not be fresh. Every test here fails when its rule is
 * removed from shared/mail/fresh-text*.ts.
 */

const CARD = "Summary: refund EUR 120.00\ncode: K7Q2 M9XT 4Z";

function fresh(text: string): string {
  return freshText({ text, html: null }).text;
}

function expectCut(text: string, kept = "APPROVE K7Q2M9XT4Z"): void {
  const out = fresh(text);
  expect(out).toContain(kept);
  expect(out).not.toContain("Summary: refund");
  expect(out).not.toContain("code: K7Q2");
}

describe("freshText: choosing the part", () => {
  it("uses the plain-text part when it has content", () => {
    expect(freshText({ text: "APPROVE X", html: "<p>other</p>" })).toEqual({
      text: "APPROVE X",
      source: "text",
    });
  });

  it("falls back to HTML when the text part is empty or whitespace", () => {
    expect(freshText({ text: " \r\n\t", html: "<p>APPROVE X</p>" })).toEqual({
      text: "APPROVE X",
      source: "html",
    });
    expect(freshText({ text: null, html: "<p>APPROVE X</p>" }).source).toBe("html");
  });

  it("says none when neither part has content", () => {
    expect(freshText({ text: null, html: null })).toEqual({ text: "", source: "none" });
    expect(freshText({ text: "\n", html: " " })).toEqual({ text: "", source: "none" });
  });
});

describe("freshText: quoting", () => {
  it("never counts `>` lines, however indented", () => {
    expectCut(`APPROVE K7Q2M9XT4Z\n\n> Summary: refund EUR 120.00\n   >> code: K7Q2 M9XT 4Z`);
  });

  it("treats invisible format characters before `>` as indentation", () => {
    expectCut("APPROVE K7Q2M9XT4Z\n\u200b> Summary: refund EUR 120.00\n\ufeff> code: K7Q2 M9XT 4Z");
  });

  it("skips an attribution followed by a quote and keeps reading (bottom-posting, Thunderbird)", () => {
    const out = fresh(
      `On 04/03/2025 10:12, Refund Agent wrote:\n> ${CARD.replace("\n", "\n> ")}\n\nAPPROVE K7Q2M9XT4Z`,
    );
    expect(out).toBe("APPROVE K7Q2M9XT4Z");
  });

  it("keeps text between quote blocks (interleaved replies)", () => {
    const out = fresh("> Amount?\n\nRight.\n\n> code: K7Q2 M9XT 4Z\n\nAPPROVE K7Q2M9XT4Z");
    expect(out).toContain("Right.");
    expect(out).toContain("APPROVE K7Q2M9XT4Z");
  });

  it("drops the unquoted tail a client leaves when it re-wraps a long quoted line", () => {
    const long = "> Summary: refund EUR 120.00 to customer C-77 for order 1042, duplicate charge";
    expect(fresh(`Yes\n\n${long}\nAPPROVE K7Q2M9XT4Z\n> more`)).toBe("Yes");
    expect(fresh(`Yes\n\n${long}\ntail one\ntail two\n\nAPPROVE K7Q2M9XT4Z`)).toBe(
      "Yes\n\n\nAPPROVE K7Q2M9XT4Z",
    );
  });

  it("keeps a reply typed right under a short quoted line (talon thunderbird.eml)", () => {
    expect(fresh("On 04/02/2012 06:26 PM, Megan One wrote:\n> Hi\nHello\n")).toBe("Hello");
  });
});

describe("freshText: attributions", () => {
  it("stops at an attribution with nothing quoted below (card pasted unquoted)", () => {
    expectCut(
      `APPROVE K7Q2M9XT4Z\n\nOn Tue, Mar 4, 2025 at 10:12 AM Refund Agent <r@agents.example.com> wrote:\n\n${CARD}`,
    );
  });

  it("reads `wrote` without a colon (crisp email_24)", () => {
    expectCut(
      `APPROVE K7Q2M9XT4Z\n\nOn Wed, 14 Nov 2018 08:14:43 -0200 Agent <a@example.com> wrote\n\n${CARD}`,
    );
  });

  it("reads an address line ending in a colon (Gmail with a numeric date, crisp email_22/23)", () => {
    expectCut(
      `APPROVE K7Q2M9XT4Z\n\n2017-11-24 16:32 GMT+01:00 Baptiste - Crisp <b@crisp.example>:\n\n${CARD}`,
    );
  });

  it.each([
    ["de, Gmail", "Am Di., 4. März 2025 um 10:12 Uhr schrieb Agent <a@example.com>:"],
    ["de, Thunderbird", "Am 25.06.2015 um 10:55 schrieb Test user:"],
    ["fr", "Le 19/03/2014 11:34, Georges du chemin a écrit :"],
    ["es", "El 19/03/2014 11:34, Juan Pérez escribió:"],
    ["it", "Il giorno lun 4 lug 2022 alle ore 08:12 Rick ha scritto:"],
    ["pt", "Em 10 de julho de 2017 às 16:32:35, John Doe escreveu:"],
    ["nl", "Op 12 december 2016 19:05 schreef Company Questions:"],
    ["da", "Den 08/06/2015 kl. 21.21 skrev Test user:"],
    ["pl", "W dniu 7 stycznia 2015 15:24 użytkownik Paweł Brzoski napisał:"],
    ["fi", "pe 20. lokakuuta 2017 klo 17.50 John Coe kirjoitti:"],
    ["ru", "30 апреля 2025 г. Иван написал:"],
    ["hu", '2013.02.08. 7:31 keltezéssel, "Gyõrvári Eszter" írta:'],
    ["zh", "在 2016年11月8日，下午2:23，Test user 写道："],
    ["ko", "2016. 11. 8. 오후 12:39 Test user 작성:"],
  ])("recognises the %s attribution", (_lang, line) => {
    expectCut(`APPROVE K7Q2M9XT4Z\n\n${line}\n\n${CARD}`);
  });

  it("joins an attribution wrapped over three lines and keeps it out of the fresh text", () => {
    const text = `APPROVE K7Q2M9XT4Z\n\nOn Dec 16, 2011, at 12:47 PM, Corey Donohoe\n<reply@reply.github.com>\nwrote:\n\n${CARD}`;
    expect(fresh(text)).toBe("APPROVE K7Q2M9XT4Z");
  });

  it("keeps a reply line written right above the attribution (crisp tricky_12)", () => {
    const text = `APPROVE K7Q2M9XT4Z\nOn Dec 15, 2024, at 3:00 PM, John Smith <john@example.com> wrote:\n${CARD}`;
    expect(fresh(text)).toBe("APPROVE K7Q2M9XT4Z");
  });

  it("does not take ordinary lines that start with `On` for attributions (github email_one_is_not_on)", () => {
    const text = "On Friday I checked it.\nOn the other hand: fine.\n\nAPPROVE K7Q2M9XT4Z";
    expect(fresh(text)).toBe(text);
  });
});

describe("freshText: separators that stop the walk", () => {
  it.each([
    [
      "Outlook",
      "From: Refund Agent <r@a.example>\nSent: Tuesday, March 4, 2025 10:12 AM\nTo: Dana\nSubject: Confirm",
    ],
    ["Outlook, From wrapped", "From: Refund Agent \n<r@a.example> \nSent: Tuesday, March 4, 2025 10:12 AM"],
    ["Outlook, bold", "*From:* Refund Agent\n*Sent:* Tuesday, March 4, 2025"],
    ["Outlook (de)", "Von: Refund Agent <r@a.example>\nGesendet: Dienstag, 4. März 2025 10:12\nAn: Dana"],
    ["Outlook (fr)", "De : Refund Agent\nEnvoyé le :mardi 4 mars 2025 10:12\nÀ : dana@example.com"],
    ["Outlook (it)", "Da: Refund Agent\nInviato: martedì 4 marzo 2025 10:12\nA: Dana"],
    ["Outlook (nl)", "Van: Refund Agent\nVerzonden: dinsdag 4 maart 2025 10:12\nAan: Dana"],
    ["Windows Mail (ru)", "От: Refund Agent\nОтправлено: 4 марта 2025 г. 10:12\nКому: Dana"],
    ["Date before From", "Date: Tue, 4 Mar 2025 10:12:00 +0000\nFrom: r@a.example\nTo: dana@example.com"],
  ])("a %s header block", (_client, block) => {
    expectCut(`APPROVE K7Q2M9XT4Z\n\n${block}\n\n${CARD}`);
  });

  it("needs a second header near a sender line (github email_2_4: `From: foo` in a reply)", () => {
    expect(fresh("From: foo\nBar baz.\n\nAPPROVE K7Q2M9XT4Z")).toBe(
      "From: foo\nBar baz.\n\nAPPROVE K7Q2M9XT4Z",
    );
  });

  it("a header block flattened onto one line", () => {
    expectCut(
      `APPROVE K7Q2M9XT4Z\n\nDate: Tue, 2 Oct 2012 02:35:10 +0000 From: a@b.example To: Dana Subject: Confirm\n${CARD}`,
    );
  });

  it("a header-like line too long to search", () => {
    expectCut(`APPROVE K7Q2M9XT4Z\n\nFrom: ${"x".repeat(3000)}\n${CARD}`);
  });

  it.each([
    "-----Original Message-----",
    "----- Original Message -----",
    "-----Ursprüngliche Nachricht-----",
    "-------- Message d'origine --------",
    "---------- Forwarded message ---------",
    "---- On Wed, 24 Feb 2021 14:02:50 +0530 a@b.example wrote ----",
  ])("a framed banner: %s", (banner) => {
    expectCut(`APPROVE K7Q2M9XT4Z\n\n${banner}\n${CARD}`);
  });

  it.each([
    "Begin forwarded message:",
    "Anfang der weitergeleiteten Nachricht:",
    "Début du message réexpédié :",
    "Original Message",
  ])("a forward phrase without framing: %s", (phrase) => {
    expectCut(`APPROVE K7Q2M9XT4Z\n\n${phrase}\n\n${CARD}`);
  });

  it.each(["__________", "________________________________", "----------", "==========", "——————————"])(
    "a rule of 10+ rule characters: %s",
    (rule) => {
      expectCut(`APPROVE K7Q2M9XT4Z\n${rule}\n${CARD}`);
    },
  );

  it("not a shorter rule (crisp tricky_7 markdown dashes)", () => {
    expect(fresh("## Key Points\n----\n\nAPPROVE K7Q2M9XT4Z")).toContain("APPROVE K7Q2M9XT4Z");
  });

  it.each(["-- ", "--"])("the signature delimiter %j", (delimiter) => {
    expectCut(`APPROVE K7Q2M9XT4Z\n${delimiter}\nDana\n${CARD}`);
  });

  it("not `--` inside a line (github email_sig_delimiter_in_middle_of_line)", () => {
    expect(fresh("A fix -- not a signature.\nAPPROVE K7Q2M9XT4Z")).toContain("APPROVE K7Q2M9XT4Z");
  });

  it.each([
    "Sent from my iPhone",
    "Sent from my Galaxy",
    "Get Outlook for iOS<https://aka.ms/o0ukef>",
    "Download Outlook for Android<https://aka.ms/ghei36>",
    "Sent from Mail for Windows",
    "Sent from Yahoo Mail on Android",
    "Envoyé de mon iPhone",
    "Von meinem iPhone gesendet",
    "Gesendet von Outlook für Android<https://aka.ms/AAb9ysg>",
    "Verstuurd vanaf mijn iPhone",
    "Enviado desde mi iPhone",
  ])("a mobile/app signature: %s", (signature) => {
    expectCut(`APPROVE K7Q2M9XT4Z\n\n${signature}\n\n${CARD}`);
  });

  it("not `sent from` inside a sentence (crisp tricky_8)", () => {
    expect(fresh("The mail was sent from my iPhone app.\nAPPROVE K7Q2M9XT4Z")).toContain(
      "APPROVE K7Q2M9XT4Z",
    );
  });
});

describe("freshText: line breaks", () => {
  it.each([
    ["CRLF", "\r\n"],
    ["LF", "\n"],
    ["CR", "\r"],
    ["VT", "\v"],
    ["FF", "\f"],
    ["NEL", "\u0085"],
    ["LINE SEPARATOR", "\u2028"],
    ["PARAGRAPH SEPARATOR", "\u2029"],
  ])("splits on %s", (_name, br) => {
    const out = fresh(`APPROVE K7Q2M9XT4Z${br}> Summary: refund EUR 120.00${br}> code: K7Q2 M9XT 4Z`);
    expect(out).toBe("APPROVE K7Q2M9XT4Z");
  });

  it("splits a separator off the line before it on every break", () => {
    for (const br of ["\r", "\v", "\f", "\u0085", "\u2028", "\u2029"]) {
      expectCut(`APPROVE K7Q2M9XT4Z${br}Sent from my iPhone${br}${CARD.replace("\n", br)}`);
    }
  });
});
