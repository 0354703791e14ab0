import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../cli/commands/admin.ts";
import { type Emulators, startEmulators } from "../../cli/local/emulators.ts";
import { type AwsClients, makeClients } from "../../shared/aws/clients.ts";
import { silentLogger } from "../../shared/logger.ts";
import { AdminRepo } from "../../shared/store/admin-repo.ts";
import { testCatalog } from "../helpers/admin-catalog.ts";
import {
  type HostileServer,
  POISONED_DESCRIPTION,
  startHostileServer,
} from "../helpers/mcp-servers/hostile.ts";

/** `postern mcp add|review|list|remove` against the hostile server, through the admin write check. */
const catalog = testCatalog();
const TOKEN_ENV = "ORDERS_MCP_TOKEN";
const TOKEN = "cli-test-token-value";

let em: Emulators;
let clients: AwsClients;
let hostile: HostileServer;
let repo: AdminRepo;

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runAdminCommand(argv, {
    catalog,
    io: {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    },
    open: async (o) => ({
      kind: o.target === "aws" ? "aws" : "local-running",
      resources: em.resources,
      clients,
      close: async () => {},
    }),
  });
  return { code, out, err };
}

beforeAll(async () => {
  em = await startEmulators();
  clients = makeClients(em.resources);
  hostile = await startHostileServer();
  repo = new AdminRepo({ dynamo: clients.dynamo, tables: em.resources.tables, logger: silentLogger });
  process.env[TOKEN_ENV] = TOKEN;
});
afterAll(async () => {
  delete process.env[TOKEN_ENV];
  await hostile.close();
  clients.dynamo.destroy();
  await em.stop();
});
beforeEach(async () => {
  hostile.state.rugPull = false;
  await repo.importDocument({}, { replace: true, catalog });
});

describe("postern mcp", () => {
  it("add with contradictory flags: exit 2, one line naming the flags (the console's form names them in words)", async () => {
    const neither = await cli("mcp", "add", "orders");
    expect([neither.code, neither.err.trim()]).toEqual([2, "error: give exactly one of --url and --command"]);
    const both = await cli(
      ...["mcp", "add", "orders", "--url", hostile.url, "--bearer-secret", TOKEN_ENV],
      ...["--oauth-token-url", "https://auth.example.com/token"],
    );
    expect([both.code, both.err.trim()]).toEqual([
      2,
      "error: --bearer-secret and --oauth-token-url exclude each other",
    ]);
    const half = await cli("mcp", "add", "orders", "--url", hostile.url, "--oauth-token-url", hostile.url);
    expect([half.code, half.err.trim()]).toEqual([
      2,
      "error: OAuth client credentials need --oauth-client-id and --oauth-secret",
    ]);
    expect(await repo.listMcpServers()).toEqual([]);
  });

  it("add lists the tools for review, pins only the chosen ones with their class, and stores no secret", async () => {
    const add = await cli(
      "mcp",
      "add",
      "orders",
      "--url",
      hostile.url,
      "--bearer-secret",
      TOKEN_ENV,
      "--tools",
      "order_status=read,cancelOrder=act",
    );
    expect(add.err).toBe("");
    expect(add.code).toBe(0);
    expect(add.out).toContain("server orders: 5 tools listed, 2 reviewed and offered");
    expect(add.out).toContain("lookup_order: not reviewed (never offered)");
    // The poison is shown to the operator, as the server's words, with its claims labelled as claims.
    expect(add.out).toContain(POISONED_DESCRIPTION.slice(0, 40));
    expect(add.out).toContain("annotations (claims; no gate reads them)");
    expect(hostile.calls).toEqual([]);

    const listed = JSON.parse((await cli("mcp", "list", "--json")).out);
    expect(listed).toEqual([
      expect.objectContaining({
        id: "orders",
        auth: "bearer",
        tools: [
          expect.objectContaining({ name: "order_status", exposedAs: "orders_order_status", class: "read" }),
          expect.objectContaining({ name: "cancelOrder", exposedAs: "orders_cancel_order", class: "act" }),
        ],
      }),
    ]);
    const exported = JSON.stringify(await repo.exportDocument());
    expect(exported).toContain(TOKEN_ENV);
    expect(exported).not.toContain(TOKEN);
    expect(exported).toMatch(/"hash":"[0-9a-f]{64}"/);
  });

  it("review shows a rug pull as changed and withheld, and --tools pins what is there now", async () => {
    await cli("mcp", "add", "orders", "--url", hostile.url, "--tools", "lookup_order=read");
    hostile.state.rugPull = true;
    const seen = await cli("mcp", "review", "orders");
    expect(seen.out).toContain("lookup_order: CHANGED since review (withheld)");
    expect(seen.out).toContain("audit@evil.example");
    const before = (await repo.listMcpServers())[0]?.tools[0]?.hash;
    expect((await cli("mcp", "review", "orders", "--tools", "lookup_order=restricted")).code).toBe(0);
    const after = (await repo.listMcpServers())[0]?.tools[0];
    expect(after?.class).toBe("restricted");
    expect(after?.hash).not.toBe(before);
    expect((await cli("mcp", "review", "orders")).out).toContain("lookup_order: reviewed");
  });

  it("toolkits grant reviewed tools by name; a name a registered tool has is refused", async () => {
    await cli("mcp", "add", "orders", "--url", hostile.url, "--tools", "order_status=read");
    await repo.importDocument(
      { agents: [{ address: "suzie@shopping.example.net", name: "Suzie", model: "demo" }] },
      { catalog },
    );
    const kit = await cli("toolkits", "add", "--id", "orders", "--tools", "orders_order_status");
    expect(kit).toMatchObject({ code: 0 });
    const shadow = await cli(
      "mcp",
      "add",
      "evil",
      "--url",
      hostile.url,
      "--tools",
      "order_status=read:send_email",
    );
    expect(shadow.code).toBe(1);
    expect(shadow.err).toContain("is a registered tool's name");
  });

  it("refuses a stdio server for AWS, and a server whose tool list cannot be read", async () => {
    const stdio = await cli("mcp", "add", "local", "--command", "node", "--target", "aws");
    expect(stdio).toMatchObject({
      code: 1,
      err: expect.stringContaining("stdio servers (--command) run only in the local stack"),
    });
    const aws = await cli(
      "mcp",
      "add",
      "orders",
      "--url",
      hostile.url,
      "--target",
      "aws",
      "--config",
      "unused",
    );
    expect(aws.code).toBe(1);
    expect(aws.err).toContain("mcp-address-not-public");
    expect(await repo.listMcpServers()).toEqual([]);
  });

  it("remove takes the server away", async () => {
    await cli("mcp", "add", "orders", "--url", hostile.url);
    expect((await cli("mcp", "remove", "orders")).code).toBe(0);
    expect(await repo.listMcpServers()).toEqual([]);
    expect((await cli("mcp", "remove", "orders")).code).toBe(1);
  });
});
