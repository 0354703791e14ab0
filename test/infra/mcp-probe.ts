// Bundled with agent-step's stubs and swaps (infra/bundling.ts AGENT_STEP_STUBS) and run in a fresh process by
// test/infra/agent-step-mcp-chunk.test.ts: the MCP client as agent-step's bundle holds it (loaded from its chunk
// on the first connection) lists a server's tools. Arguments: the server URL, the result file.
import { writeFileSync } from "node:fs";
import { mcpConnector, mcpServerItem } from "../../shared/mcp/index.ts";

const [url, resultFile] = process.argv.slice(2);
const connect = mcpConnector({
  resolve: async () => ["127.0.0.1"],
  secret: async () => undefined,
  local: { allowStdio: false, allowLoopback: true },
});
const session = await connect(mcpServerItem.parse({ id: "everything", transport: "http", url }));
const tools = (await session.listTools()).map((t) => t.name);
await session.close();
writeFileSync(resultFile ?? "", JSON.stringify({ tools }));
