import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_CONFIG_FILE,
  DEMO_OPERATOR,
  DEMO_REFUNDS_AGENT,
  ensureDemoFiles,
  seedDemo,
} from "../../cli/local/demo.ts";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { adminCatalog } from "../../shared/admin/catalog.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { loadConfigFile } from "../../shared/config/load.ts";
import { silentLogger } from "../../shared/logger.ts";
import { AdminRepo } from "../../shared/store/admin-repo.ts";
import { grantableNames } from "../../tools/index.ts";

/** The demo's admin state goes through the write check; an operator no card can reach is not its approver. */
let em: Emulators;
let clients: AwsClients;
beforeAll(async () => {
  em = await startEmulators();
  clients = makeClients(em.resources);
});
afterAll(async () => {
  clients.dynamo.destroy();
  await em.stop();
});

describe("the demo seed", () => {
  it("seeds everything but the approver when the operator cannot receive a confirm card, and says why", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-demo-seed-"));
    const catalog = adminCatalog(loadConfigFile(ensureDemoFiles(dir)).config, grantableNames());
    const repo = new AdminRepo({ dynamo: clients.dynamo, tables: em.resources.tables, logger: silentLogger });
    const seed = await seedDemo(clients, em.resources, silentLogger, {
      operator: "operator@localhost",
      catalog,
    });
    expect(seed).toEqual({
      seeded: true,
      approverRefused: [
        { path: "approvers[0].address", message: expect.stringContaining("cannot receive a confirm card") },
      ],
    });
    expect((await repo.listAgents()).map((a) => a.address)).toContain(DEMO_REFUNDS_AGENT);
    expect(await repo.listApprovers()).toEqual([]);
    // Seeded once: a table that holds agents is the operator's.
    expect(await seedDemo(clients, em.resources, silentLogger, { operator: DEMO_OPERATOR, catalog })).toEqual(
      {
        seeded: false,
      },
    );
  });

  it("gives a demo config from before the refund desk its model, keeping the rest", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-demo-old-"));
    const old = {
      domains: ["demo.postern.test"],
      maxToolTurns: 5,
      models: [{ id: "demo", provider: "scripted", script: "demo-script.json", egress: "internal" }],
    };
    writeFileSync(join(dir, DEMO_CONFIG_FILE), JSON.stringify(old));
    const config = loadConfigFile(ensureDemoFiles(dir)).config;
    expect(config.models.map((m) => m.id)).toEqual(["demo", "demo-refunds"]);
    expect(config.maxToolTurns).toBe(5);
    expect(JSON.parse(readFileSync(join(dir, DEMO_CONFIG_FILE), "utf8")).maxToolTurns).toBe(5);
  });
});
