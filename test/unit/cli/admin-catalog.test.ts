import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogFor } from "../../../cli/commands/admin-catalog.ts";
import { consoleCatalog } from "../../../console/deps.ts";
import { checkDocument } from "../../../shared/admin/document.ts";
import { loadConfigFile } from "../../../shared/config/index.ts";
import { EMPTY_ADMIN } from "../../helpers/admin-catalog.ts";

// Finding 2 of issue 31 item 7: a stack runs the config it started with. A write checked against the file's new
// text would pass where the stack then refuses the mail; one checked against the old config must not cite a file
// that already lists the domain without saying that a restart is what is missing.
const file = (dir: string, domains: string[]) => {
  const path = join(dir, "postern.config.json");
  writeFileSync(
    path,
    JSON.stringify({
      domains,
      models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
    }),
  );
  return path;
};
const agentAt = (domain: string) => ({
  agents: [{ address: `desk@${domain}`, name: "Desk", model: "demo" }],
});
const issuesOf = (r: ReturnType<typeof checkDocument>) => (r.ok ? [] : r.issues.map((i) => i.message));

describe("admin writes against a running local stack", () => {
  it("are checked against the config the stack runs, and say so when the file on disk has moved on", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-catalog-"));
    const path = file(dir, ["a.example.com"]);
    const running = loadConfigFile(path).config;
    file(dir, ["a.example.com", "b.example.com"]);

    const catalog = catalogFor({
      target: { kind: "local-running", configFile: path, runningConfig: running },
      cwd: dir,
    });
    expect(catalog.domains).toEqual(["a.example.com"]);
    const [message] = issuesOf(checkDocument(agentAt("b.example.com"), { catalog, stored: EMPTY_ADMIN }));
    expect(message).toContain('("domains" in the config the running stack started with (');
    expect(message).toContain(
      "postern.config.json on disk differs from it: restart the stack (Ctrl-C, then npm start) to run the file",
    );
  });

  it("says nothing of a restart while the file is what the stack runs", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-catalog-"));
    const path = file(dir, ["a.example.com"]);
    const running = loadConfigFile(path).config;
    const catalog = catalogFor({
      target: { kind: "local-running", configFile: path, runningConfig: running },
      cwd: dir,
    });
    const [message] = issuesOf(checkDocument(agentAt("b.example.com"), { catalog, stored: EMPTY_ADMIN }));
    expect(message).toContain("the config the running stack started with");
    expect(message).not.toContain("restart");
  });
});

describe("console writes on the local stack", () => {
  it("say the file on disk differs from the config the stack runs, once it does", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-catalog-"));
    const path = file(dir, ["a.example.com"]);
    const running = loadConfigFile(path).config;
    const catalog = consoleCatalog(running, ["send_email"], path);
    const refusal = () =>
      issuesOf(checkDocument(agentAt("b.example.com"), { catalog: catalog(), stored: EMPTY_ADMIN }))[0];
    expect(refusal()).toContain(`"domains" in the config the running stack started with (${path})`);
    expect(refusal()).not.toContain("restart");
    file(dir, ["a.example.com", "b.example.com"]);
    expect(catalog().domains).toEqual(["a.example.com"]);
    expect(refusal()).toContain(`${path} on disk differs from it: restart the stack`);
    // In AWS (no file): the deployed config, cited as before.
    expect(
      issuesOf(
        checkDocument(agentAt("b.example.com"), {
          catalog: consoleCatalog(running, [])(),
          stored: EMPTY_ADMIN,
        }),
      )[0],
    ).toContain('("domains" in postern.config.json)');
  });
});
