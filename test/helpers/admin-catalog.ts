import type { AdminCatalog } from "../../shared/admin/catalog.ts";
import type { AdminSnapshot } from "../../shared/admin/schema.ts";
import { grantableNames } from "../../tools/index.ts";

/**
 * A deployment for admin-write tests: the domains and models a test's documents use, and every tool and resolver
 * this build registers (the real registry, not a list a test could make agree with itself).
 */
export function testCatalog(
  over: { domains?: readonly string[]; models?: readonly string[]; maxRecipients?: number } = {},
): AdminCatalog {
  return {
    domains: over.domains ?? ["shopping.example.net"],
    models: over.models ?? ["demo"],
    tools: grantableNames(),
    maxRecipients: over.maxRecipients ?? 20,
  };
}

/** Nothing stored yet. */
export const EMPTY_ADMIN: AdminSnapshot = {
  agents: [],
  accessRules: [],
  outboundRules: [],
  toolkits: [],
  responsibilities: [],
  approvers: [],
  webhooks: [],
  mcpServers: [],
};
