import { parseAddrSpec, routingKey } from "../mail/index.ts";
import { type AdminCatalog, catalogCite } from "./catalog.ts";
import type { AdminIssue } from "./issues.ts";
import type { AdminDocument, AdminSnapshot } from "./schema.ts";

/**
 * An MCP tool may not take the name of a registered tool (it would shadow send_email) nor of another server's
 * tool: a toolkit's grant must name exactly one tool (G11).
 */
function mcpIssues(doc: AdminDocument, catalog: AdminCatalog, stored: AdminSnapshot): AdminIssue[] {
  const issues: AdminIssue[] = [];
  const registered = new Set(catalog.tools);
  const owner = new Map<string, string>();
  for (const t of pinnedTools(doc, stored)) {
    const other = owner.get(t.exposedAs);
    if (other !== undefined && other !== t.server)
      issues.push({
        path: `mcpServers.${t.server}`,
        message: `tool name ${q(t.exposedAs)} is also ${q(other)}'s`,
      });
    owner.set(t.exposedAs, t.server);
  }
  doc.mcpServers.forEach((m, i) => {
    m.tools.forEach((t, j) => {
      if (registered.has(t.exposedAs))
        issues.push({
          path: `mcpServers[${i}].tools[${j}].exposedAs`,
          message: `${q(t.exposedAs)} is a registered tool's name; choose another`,
        });
    });
  });
  return issues;
}

/**
 * An admin document against the deployment and the rest of the admin state: what the item schemas
 * cannot know. Each check stands for an item that would be stored and then never work, with only a log line to
 * say so at run time.
 */

/** A value in a message: quoted and escaped, so a crafted value cannot fake lines in CLI output. */
const q = (v: string): string => JSON.stringify(v);
const listed = (values: readonly string[]): string => (values.length ? values.join(", ") : "(none)");

export function deploymentIssues(
  doc: AdminDocument,
  catalog: AdminCatalog,
  stored: AdminSnapshot,
  replace: boolean,
): AdminIssue[] {
  return [
    ...agentIssues(doc.agents, catalog),
    ...toolkitIssues(doc, catalog, replace ? EMPTY : stored),
    ...mcpIssues(doc, catalog, replace ? EMPTY : stored),
    ...approverIssues(doc, catalog, replace ? EMPTY : stored),
  ];
}

const EMPTY: AdminSnapshot = {
  agents: [],
  accessRules: [],
  outboundRules: [],
  toolkits: [],
  responsibilities: [],
  approvers: [],
  webhooks: [],
  mcpServers: [],
};

/**
 * The deployment's checks on the agents of a document the schema refused, read from the raw items wherever the
 * address and model are strings: a refused form names every problem at once (a wrong model beside a bad number),
 * not one per submit.
 */
export function looseDeploymentIssues(input: unknown, catalog: AdminCatalog): AdminIssue[] {
  const agents = (input as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(agents)) return [];
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return agentIssues(
    agents.map((a: { address?: unknown; model?: unknown } | null) => ({
      address: str(a?.address),
      model: str(a?.model),
    })),
    catalog,
  );
}

function agentIssues(
  agents: readonly { readonly address?: string | undefined; readonly model?: string | undefined }[],
  catalog: AdminCatalog,
): AdminIssue[] {
  const issues: AdminIssue[] = [];
  agents.forEach((a, i) => {
    // A raw item whose address the schema refused is the schema's to name; its domain is not checked here.
    if (a.address?.includes("@")) {
      const domain = a.address.slice(a.address.lastIndexOf("@") + 1);
      // G1: mail is routed only for registered domains, and the outbound never sends From any other (domain-unregistered).
      if (!catalog.domains.includes(domain))
        issues.push({
          path: `agents[${i}].address`,
          message: `domain ${q(domain)} is not registered; an agent's address must be at one of: ${listed(catalog.domains)} (${catalogCite(catalog, "domains")})`,
        });
    }
    // A run of an agent whose model is not in the catalog fails before its first round (model-unknown).
    if (a.model !== undefined && !catalog.models.includes(a.model))
      issues.push({
        path: `agents[${i}].model`,
        message: `no model ${q(a.model)} in the catalog; one of: ${listed(catalog.models)} (${catalogCite(catalog, "models")})`,
      });
  });
  return issues;
}

/** The reviewed MCP tools as they will be stored: the document's servers over the stored ones of other ids. */
function pinnedTools(doc: AdminDocument, stored: AdminSnapshot): { server: string; exposedAs: string }[] {
  const ids = new Set(doc.mcpServers.map((m) => m.id));
  return [...doc.mcpServers, ...stored.mcpServers.filter((m) => !ids.has(m.id))].flatMap((m) =>
    m.tools.map((t) => ({ server: m.id, exposedAs: t.exposedAs })),
  );
}

function toolkitIssues(doc: AdminDocument, catalog: AdminCatalog, stored: AdminSnapshot): AdminIssue[] {
  const issues: AdminIssue[] = [];
  // A reviewed MCP tool is granted like any tool, by the name the model calls.
  const tools = new Set([...catalog.tools, ...pinnedTools(doc, stored).map((t) => t.exposedAs)]);
  doc.toolkits.forEach((t, i) => {
    t.tools.forEach((name, j) => {
      // A name the registry does not hold is offered to no model (G11): the toolkit would grant nothing by it.
      if (!tools.has(name))
        issues.push({
          path: `toolkits[${i}].tools[${j}]`,
          message: `no tool ${q(name)} in the registry; one of: ${listed(catalog.tools)}`,
        });
    });
  });
  return issues;
}

/**
 * Approvers (G14) must be able to receive a confirm card and to confirm it. A card is new mail from one of the
 * toolkit's agents, addressed by the outbound exactly as shared/outbound/addressing.ts does for any new mail
 * (`newMailRecipients`): each address a strict addr-spec (`parseAddrSpec`), the sending agent dropped, at most
 * `outbound.maxRecipients` in all; the agent's outbound rules do not apply to it (`recipientsFrom: "approvers"`).
 * An agent's own address can never confirm (apply-plan's `confirm-from-agent`: agent mail never approves).
 */
function approverIssues(doc: AdminDocument, catalog: AdminCatalog, stored: AdminSnapshot): AdminIssue[] {
  const issues: AdminIssue[] = [];
  const agents = new Set([...stored.agents, ...doc.agents].map((a) => routingKey(a.address)));
  const count = new Map<string, number>();
  const keyOf = (toolkit: string, address: string) => `${toolkit}\n${routingKey(address)}`;
  const written = new Set(doc.approvers.map((a) => keyOf(a.toolkit, a.address)));
  for (const a of [
    ...stored.approvers.filter((s) => !written.has(keyOf(s.toolkit, s.address))),
    ...doc.approvers,
  ])
    count.set(a.toolkit, (count.get(a.toolkit) ?? 0) + 1);

  const over = new Set<string>();
  doc.approvers.forEach((a, i) => {
    const path = `approvers[${i}].address`;
    const parsed = parseAddrSpec(a.address);
    if (!parsed.ok)
      issues.push({
        path,
        message:
          "cannot receive a confirm card: the outbound sends only to a plain address at a domain with a dot and a " +
          "letter-only top-level name, like boss@example.com (recipient-invalid)",
      });
    else if (agents.has(routingKey(a.address)))
      issues.push({ path, message: "is an agent's address; agent mail can never confirm a plan (G14)" });
    const n = count.get(a.toolkit) ?? 0;
    if (n > catalog.maxRecipients && !over.has(a.toolkit)) {
      over.add(a.toolkit);
      issues.push({
        path,
        message: `toolkit ${q(a.toolkit)} would have ${n} approvers; a confirm card goes to at most ${catalog.maxRecipients} (${catalogCite(catalog, "outbound.maxRecipients")})`,
      });
    }
  });
  return issues;
}
