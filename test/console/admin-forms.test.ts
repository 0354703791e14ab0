import { describe, expect, it } from "vitest";
import type * as z from "zod";
import type { AdminKind } from "../../console/admin-edit.ts";
import { itemFromForm } from "../../console/admin-form.ts";
import { adminView, agentForm, responsibilityForm, toolkitForm } from "../../console/views/admin.ts";
import {
  type AdminSnapshot,
  accessRuleItem,
  agentItem,
  approverItem,
  FORMER_NAMES,
  outboundRuleItem,
  responsibilityItem,
  toolkitItem,
} from "../../shared/admin/schema.ts";
import { mcpServerItem } from "../../shared/mcp/index.ts";
import { controlNames, submittedFields } from "../helpers/form-controls.ts";

/**
 * Editing a toolkit in the console dropped its `archiveScope` and `egressHosts`, because the form had
 * no input for them. The list of fields here is the schema's own (its zod shape), so a field added to an admin
 * schema and not to its console form fails this test. Each editable item, fully populated with values that are
 * not the defaults, goes through its edit form as a browser would submit it and must come back unchanged.
 */
// A former name (FORMER_NAMES) is read, never offered: an edit saves the field under its new name.
const fields = (schema: z.ZodObject) =>
  Object.keys(schema.shape)
    .filter((k) => !Object.values(FORMER_NAMES).flat().includes(k))
    .sort();

const AGENT = agentItem.parse({
  address: "helpdesk@agents.example.com",
  name: 'Helpdesk <support> & "friends" \'n co',
  model: "claude",
  instructions: "Be brief.\nSign as <Helpdesk> & co.",
  maxRounds: 4,
  runsPerDay: 20,
  tokensPerDay: 50_000,
  acceptAutoSubmitted: true,
  acceptListMail: true,
  acceptBcc: true,
  continueAfterReply: true,
  enabled: false,
});
const TOOLKIT = toolkitItem.parse({
  id: "staff-search",
  name: "Staff search & fetch",
  tools: ["search_mail", "web_fetch"],
  agents: ["helpdesk@agents.example.com", "shop@agents.example.com"],
  senderRules: [
    { effect: "allow", pattern: "*@staff.example.com" },
    { effect: "deny", pattern: "intern@staff.example.com" },
  ],
  allowScheduled: true,
  system: true,
  confirmBySender: true,
  archiveScope: "agent",
  egressHosts: ["api.example.com", "docs.example.org"],
});
const RESPONSIBILITY = responsibilityItem.parse({
  id: "daily-digest",
  agent: "helpdesk@agents.example.com",
  schedule: "cron(0 9 ? * MON-FRI *)",
  prompt: "Summarise yesterday's <open> threads & mail the team.",
  enabled: false,
  archiveScope: "agent",
});

const MODELS = ["claude", "demo"];
const EDIT_FORMS = [
  ["agents", agentItem, AGENT, (item: typeof AGENT) => agentForm("t", item, "edit", MODELS)],
  ["toolkits", toolkitItem, TOOLKIT, (item: typeof TOOLKIT) => toolkitForm("t", item, "edit")],
  [
    "responsibilities",
    responsibilityItem,
    RESPONSIBILITY,
    (item: typeof RESPONSIBILITY) => responsibilityForm("t", item, "edit"),
  ],
] as const;

describe.each(EDIT_FORMS)("the %s form", (kind, schema, item, render) => {
  it("the fixture sets every field of the schema (so the round trip below covers them all)", () => {
    expect(Object.keys(item).sort()).toEqual(fields(schema));
  });

  it("has an input for every field of the schema, when adding and when editing", () => {
    const add = {
      agents: (csrf: string) => agentForm(csrf, null, "create", MODELS),
      toolkits: (csrf: string) => toolkitForm(csrf, null, "create"),
      responsibilities: (csrf: string) => responsibilityForm(csrf, null, "create"),
    }[kind];
    for (const markup of [String(render(item as never)), String(add("t"))])
      expect([...controlNames(markup)].filter((n) => n !== "_csrf").sort()).toEqual(fields(schema));
  });

  it("saving the edit form unchanged gives back the stored item", () => {
    const submitted = submittedFields(String(render(item as never)));
    expect(schema.parse(itemFromForm(kind, submitted))).toEqual(item);
  });
});

describe("the add-only forms (rules, approvers)", () => {
  const snapshot: AdminSnapshot = {
    agents: [AGENT],
    accessRules: [],
    outboundRules: [],
    toolkits: [TOOLKIT],
    responsibilities: [],
    approvers: [],
    webhooks: [],
    mcpServers: [],
  };
  const page = String(adminView(snapshot, { csrf: "t", canWrite: true, models: MODELS }));
  const formOf = (kind: AdminKind) => {
    const m = new RegExp(`<form method="post" action="/admin/${kind}/add">[\\s\\S]*?</form>`).exec(page);
    if (!m) throw new Error(`no add form for ${kind}`);
    return m[0];
  };
  it.each([
    ["accessRules", accessRuleItem],
    ["outboundRules", outboundRuleItem],
    ["approvers", approverItem],
  ] as const)("%s: an input for every field of the schema", (kind, schema) => {
    const names = [...controlNames(formOf(kind))].filter((n) => n !== "_csrf").sort();
    expect(names).toEqual(fields(schema));
  });
});

describe("the MCP servers section (read-only)", () => {
  it("lists each server's reviewed tools with class and review time, and no secret", () => {
    const server = mcpServerItem.parse({
      id: "orders",
      transport: "http",
      url: "https://mcp.example.com/mcp",
      auth: { kind: "bearer", secret: "secretsmanager:postern/mcp/orders" },
      tools: [
        {
          name: "cancelOrder",
          exposedAs: "orders_cancel_order",
          class: "act",
          description: "Cancel an order.",
          inputSchema: { type: "object" },
          hash: "a".repeat(64),
          reviewedAt: "2026-12-01T00:00:00.000Z",
        },
      ],
    });
    const snapshot: AdminSnapshot = {
      agents: [],
      accessRules: [],
      outboundRules: [],
      toolkits: [],
      responsibilities: [],
      approvers: [],
      webhooks: [],
      mcpServers: [server],
    };
    const page = String(adminView(snapshot, { csrf: "t", canWrite: true, models: MODELS }));
    const section = page.slice(page.indexOf('<h2 id="mcpServers">'));
    expect(section).toContain(
      "<td>cancelOrder</td><td>act</td><td>orders_cancel_order</td><td>2026-12-01T00:00:00.000Z</td>",
    );
    expect(section).toContain("<td>bearer</td>");
    expect(section).not.toContain("postern/mcp/orders");
    expect(section).not.toContain("<form");
  });
});

describe("a refused form and the model (issue 31 item 7, finding 5)", () => {
  const snapshot: AdminSnapshot = {
    agents: [AGENT],
    accessRules: [],
    outboundRules: [],
    toolkits: [TOOLKIT],
    responsibilities: [],
    approvers: [],
    webhooks: [],
    mcpServers: [],
  };

  it("picks the model from the catalog; a stored model the catalog lost stays selected and marked", () => {
    const add = String(agentForm("t", null, "create", MODELS));
    expect(add).toMatch(
      /<select name="model" required><option value="">\(choose a model\)<\/option><option value="claude">claude<\/option><option value="demo">demo<\/option><\/select>/,
    );
    expect(add).not.toMatch(/<input[^>]*name="model"/);
    const stale = String(agentForm("t", { ...AGENT, model: "gone" }, "edit", MODELS));
    expect(stale).toContain('<option value="gone" selected>gone (not in the model catalog)</option>');
    expect(submittedFields(stale).model).toBe("gone");
  });

  it("shows a refused add again with what was typed, open, beside every problem", () => {
    const typed = { address: "new@elsewhere.example", name: "New desk", model: "demo", maxRounds: "many" };
    const issues = [
      { path: "maxRounds", message: "expected number" },
      { path: "address", message: 'domain "elsewhere.example" is not registered' },
    ];
    const page = String(
      adminView(snapshot, {
        csrf: "t",
        canWrite: true,
        models: MODELS,
        issues: { kind: "agents", issues, item: typed },
      }),
    );
    const form = /<details open><summary>Add an agent<\/summary>([\s\S]*?)<\/details>/.exec(page)?.[1] ?? "";
    expect(submittedFields(form)).toMatchObject({ ...typed, _csrf: "t" });
    for (const i of issues)
      expect(page).toContain(`<li><code>${i.path}</code>: ${i.message.replace(/"/g, "&quot;")}</li>`);
    const rule = String(
      adminView(snapshot, {
        csrf: "t",
        canWrite: true,
        models: MODELS,
        issues: {
          kind: "outboundRules",
          issues,
          item: { agent: AGENT.address, pattern: "*@Partner.example", effect: "deny" },
        },
      }),
    );
    const ruleForm =
      /<form method="post" action="\/admin\/outboundRules\/add">[\s\S]*?<\/form>/.exec(rule)?.[0] ?? "";
    expect(submittedFields(ruleForm)).toMatchObject({ pattern: "*@Partner.example", effect: "deny" });
  });
});
