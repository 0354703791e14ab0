import type { Hono } from "hono";
import type { ConsoleDeps } from "../deps.ts";
import type { ConsoleEnv } from "../env.ts";
import { adminPages } from "./admin-pages.ts";
import { agentPages } from "./agent-pages.ts";
import { mailPages } from "./mail-pages.ts";
import { mcpPages } from "./mcp-pages.ts";
import { planPages } from "./plan-pages.ts";
import { runPages } from "./run-pages.ts";
import { webhookPages } from "./webhook-pages.ts";

/** Every page (GET): signed in, any console group. Writes are in write.ts. */
export function readRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  agentPages(app, deps);
  runPages(app, deps);
  mailPages(app, deps);
  planPages(app, deps);
  adminPages(app, deps);
  webhookPages(app, deps);
  mcpPages(app, deps);
}
