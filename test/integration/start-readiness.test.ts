import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { unreadyAgents } from "../../cli/local/agent-readiness.ts";
import { startLocalStack } from "../../cli/local/stack.ts";
import { parseConfig } from "../../shared/config/load.ts";

/**
 * `npm start` refuses, in one line naming the file, an agent whose scripted model's script is missing or whose model
 * server does not answer: the case is the demo's config copied without its scripts, which used to start and
 * then fail the first mail's run a minute later with the cause only in the stack's log.
 */
const ROOT = join(import.meta.dirname, "../..");

describe("npm start with an agent that cannot answer", () => {
  it("refuses the demo's config copied without its scripts, naming the script and the config", async () => {
    const root = mkdtempSync(join(tmpdir(), "postern-start-ready-"));
    const dir = join(root, ".postern");
    // A first start with nothing configured: the demo's config, scripts and agents, kept in dir/data.
    const first = await startLocalStack({
      dir,
      persist: true,
      configPath: join(root, "absent.json"),
      smtpPort: 0,
    });
    await first.stop();
    copyFileSync(join(dir, "demo.config.json"), join(root, "postern.config.json"));

    const started = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, "bin/postern.mjs"),
        "start",
        ...["--smtp-port", "0", "--aws-port", "0", "--dynamodb-port", "0", "--ses-port", "0", "--no-console"],
      ],
      { cwd: root, timeout: 60_000 },
    ).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(started.code).toBe(1);
    const lines = started.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^postern start: agent /);
    expect(lines[0]).toMatch(
      /agent helpdesk@demo\.postern\.test: model demo in postern\.config\.json: its script \/\S*\/demo-script\.json does not exist/,
    );
    expect(lines[0]).toMatch(/agent refunds@demo\.postern\.test: .*demo-refunds-script\.json does not exist/);
  }, 120_000);

  it("names an OpenAI-compatible server that does not answer, and accepts one that does", async () => {
    const server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const live = (server.address() as AddressInfo).port;
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const dead = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const entry = (id: string, port: number) => ({
      id,
      provider: "openai-compatible",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "llama3.1",
      egress: "internal",
    });
    const config = {
      config: parseConfig({
        domains: ["agents.example.net"],
        models: [entry("up", live), entry("down", dead)],
      }),
      baseDir: ROOT,
    };
    try {
      const lines = await unreadyAgents({
        agents: [
          { address: "a@agents.example.net", model: "up" },
          { address: "b@agents.example.net", model: "down" },
          { address: "c@agents.example.net", model: "gone" },
        ],
        config,
        configFile: "/somewhere/postern.config.json",
      });
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(
            `^agent b@agents\\.example\\.net: model down in /somewhere/postern\\.config\\.json: nothing answers at http://127\\.0\\.0\\.1:${dead}/v1 \\(ECONNREFUSED\\); start the model server`,
          ),
        ),
        expect.stringMatching(
          /^agent c@agents\.example\.net: model gone is not in the catalog of \/somewhere\/postern\.config\.json/,
        ),
      ]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
