import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSend } from "../../cli/commands/send-actions.ts";
import { type LocalStack, startLocalStack } from "../../cli/local/stack.ts";
import { makeStores } from "../../shared/store/stores.ts";
import { recordingLogger } from "../fakes/recording-logger.ts";

const AGENT = "helpdesk@agents.example.net";
let stack: LocalStack;
let dir: string;
const cwd = process.cwd();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-send-"));
  mkdirSync(join(dir, ".postern"));
  writeFileSync(
    join(dir, "postern.config.json"),
    JSON.stringify({
      domains: ["agents.example.net"],
      models: [{ id: "demo", provider: "scripted", script: "s.json", egress: "internal" }],
    }),
  );
  // The CLI finds the running stack through ./.postern/stack.json, as an operator's shell would.
  process.chdir(dir);
  stack = await startLocalStack({
    dir: join(dir, ".postern"),
    configPath: join(dir, "postern.config.json"),
    smtpPort: 0,
  });
  await makeStores(stack.clients, stack.resources, recordingLogger()).admin.putAgent({
    address: AGENT,
    name: "Help Desk",
    model: "demo",
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  process.chdir(cwd);
});

describe("postern send (operator mail)", () => {
  it("goes out From the agent, without a hop count or Auto-Submitted (a person wrote it)", async () => {
    let out = "";
    const code = await runSend(
      {
        from: AGENT,
        to: "carol@customer.example",
        subject: "A note",
        body: "Hello from the team.",
        config: join(dir, "postern.config.json"),
      },
      {
        out: (t) => {
          out += t;
        },
        err: (t) => {
          out += t;
        },
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ status: "done" });
    const [file] = readdirSync(stack.outboxDir).filter((f) => f.endsWith(".eml"));
    const raw = readFileSync(join(stack.outboxDir, file ?? ""), "utf8");
    expect(raw).toMatch(/^From: "?Help Desk"? <helpdesk@agents\.example\.net>\r$/m);
    expect(raw).not.toMatch(/^X-Postern-Recursion:/im);
    expect(raw).not.toMatch(/^Auto-Submitted:/im);
  });
});
