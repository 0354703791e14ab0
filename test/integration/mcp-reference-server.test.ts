import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comparePins } from "../../shared/mcp/compare-pins.ts";
import { type McpServerItem, mcpConnector, mcpRuntime, pinTools } from "../../shared/mcp/index.ts";
import { everythingStdio, startEverythingHttp } from "../helpers/mcp-servers/everything.ts";
import { loopbackResolver, mcpCallContext, memoryCounter, serverItem } from "../helpers/mcp-world.ts";

/**
 * The MCP client against the reference server (@modelcontextprotocol/server-everything), over both transports:
 * register (list + pin), list again (the pins hold), call a reviewed tool, read its fenced result.
 */
const local = { allowStdio: true, allowLoopback: true };
const runtime = () =>
  mcpRuntime({
    resolve: loopbackResolver,
    secret: async () => undefined,
    local,
    counters: memoryCounter(),
    report: async () => {},
    reportUnavailable: async () => {},
  });

async function registerAndCall(server: McpServerItem): Promise<void> {
  const connect = mcpConnector({ resolve: loopbackResolver, secret: async () => undefined, local });
  const session = await connect(server);
  const listed = await session.listTools();
  await session.close();
  expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "get-sum"]));
  const pinned = pinTools(server.id, listed, [{ name: "echo", class: "read" }], new Date());
  if (!pinned.ok) throw new Error(pinned.detail);
  expect(pinned.pins[0]).toMatchObject({ name: "echo", exposedAs: "everything_echo", class: "read" });
  const reviewed = { ...server, tools: [...pinned.pins] };

  // Listing again: the reference server's definitions are stable, so the pin holds; its other tools are unreviewed.
  const again = await connect(reviewed);
  const cmp = comparePins(await again.listTools(), reviewed.tools);
  await again.close();
  expect(cmp.verified.map((p) => p.name)).toEqual(["echo"]);
  expect(cmp.changed).toEqual([]);
  expect(cmp.unreviewed).toContain("get-sum");

  const [echo] = runtime().tools([reviewed]);
  const r = await echo?.use(mcpCallContext(), { message: "hello from postern" });
  expect(r).toMatchObject({ ok: true, data: { server: "everything", tool: "echo", truncated: false } });
  const text = (r as { data: { text: string } }).data.text;
  expect(text).toMatch(
    /^<<<UNTRUSTED TOOL RESULT [0-9a-f]+>>>\n\| Echo: hello from postern\n<<<END UNTRUSTED/,
  );
}

describe("the reference server", () => {
  it("over stdio (local only): registers, pins, lists again and calls echo", async () => {
    await registerAndCall(serverItem({ id: "everything", transport: "stdio", ...everythingStdio }));
  });

  it("refuses a stdio server where the runtime is not local", async () => {
    const server = serverItem({ id: "everything", transport: "stdio", ...everythingStdio });
    const connect = mcpConnector({ resolve: loopbackResolver, secret: async () => undefined });
    await expect(connect(server)).rejects.toMatchObject({ reason: "mcp-stdio-not-allowed" });
  });

  describe("over Streamable HTTP", () => {
    let http: Awaited<ReturnType<typeof startEverythingHttp>>;
    beforeAll(async () => {
      http = await startEverythingHttp();
    });
    afterAll(() => http?.close());

    it("registers, pins, lists again and calls echo", async () => {
      await registerAndCall(serverItem({ id: "everything", url: http.url }));
    });

    it("refuses the loopback address unless the local-only setting allows it", async () => {
      const connect = mcpConnector({ resolve: loopbackResolver, secret: async () => undefined });
      await expect(connect(serverItem({ id: "everything", url: http.url }))).rejects.toThrow(
        /mcp-address-not-public/,
      );
    });
  });
});
