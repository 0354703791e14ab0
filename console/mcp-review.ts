import type { AdminIssue } from "../shared/admin/index.ts";
import {
  definitionHash,
  type ListedTool,
  listServerTools,
  type McpServerItem,
  mcpServerFromInput,
  mcpToolClass,
  type ToolChoice,
} from "../shared/mcp/index.ts";
import { type Form, formList, formNumber, formText } from "./admin-form.ts";
import type { ConsoleDeps } from "./deps.ts";

/** A choice page lists at most what an item may pin (shared/admin/mcp-server-item.ts: 100 tools). */
const MAX_TOOLS = 100;

const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|localhost|\[::1\])$/;

/**
 * The console registers https servers only. Plain http would carry a bearer token and the tools' definitions in the
 * clear, and a form is one mistyped letter from it; the CLI, which says which target it writes, keeps the schema's
 * http for operators who mean it. Locally a server on this machine may be plain http (loopback: nothing on the
 * wire). stdio servers stay with the CLI: a console form never names a process to start.
 */
export function httpsRefusal(url: string | undefined, loopbackHttp: boolean): string | null {
  if (!url) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null; // the item's schema says what is wrong with it
  }
  if (u.protocol === "https:") return null;
  if (loopbackHttp && u.protocol === "http:" && LOOPBACK_HOST.test(u.hostname)) return null;
  return "must be https (the console registers https servers only; stdio servers: postern mcp add --command)";
}

export type ServerFormResult =
  | { readonly ok: true; readonly item: McpServerItem }
  | { readonly ok: false; readonly issues: readonly AdminIssue[] };

/** The add form → a server item with no tools: references to secrets only, https only. */
export function serverFromForm(f: Form, loopbackHttp: boolean): ServerFormResult {
  const kind = formText(f, "authKind");
  const num = (k: string) => {
    const n = formNumber(f, k);
    return n === undefined ? undefined : Number(n);
  };
  const r = mcpServerFromInput(formText(f, "id"), {
    url: formText(f, "url"),
    ...(kind === "bearer" ? { bearerSecret: formText(f, "bearerSecret") || "(missing)" } : {}),
    ...(kind === "oauth"
      ? {
          oauthTokenUrl: formText(f, "oauthTokenUrl") || "(missing)",
          oauthClientId: formText(f, "oauthClientId"),
          oauthSecret: formText(f, "oauthSecret"),
          oauthScope: formText(f, "oauthScope") || undefined,
        }
      : {}),
    timeoutMs: num("timeoutMs"),
    maxCallsPerRun: num("maxCallsPerRun"),
    dataClasses: formList(f, "dataClasses"),
    recordContent: f.recordContent === "on",
  });
  if (!r.ok)
    return {
      ok: false,
      issues: r.detail.split("\n").map((line) => {
        const at = line.indexOf(": ");
        return r.reason === "invalid" && at > 0
          ? { path: line.slice(0, at), message: line.slice(at + 2) }
          : { path: "(item)", message: line };
      }),
    };
  return checkedReach(r.item, loopbackHttp);
}

/** The https rule, again on every save: a hidden field is the browser's to change. */
export function checkedReach(item: McpServerItem, loopbackHttp: boolean): ServerFormResult {
  if (item.transport !== "http")
    return {
      ok: false,
      issues: [{ path: "transport", message: "stdio servers are registered with the CLI" }],
    };
  const issues: AdminIssue[] = [];
  const url = httpsRefusal(item.url, loopbackHttp);
  if (url) issues.push({ path: "url", message: url });
  const token =
    item.auth.kind === "oauth-client-credentials" ? httpsRefusal(item.auth.tokenUrl, loopbackHttp) : null;
  if (token) issues.push({ path: "auth.tokenUrl", message: token });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, item };
}

/** One listing through the console's connector (SSRF-safe; public hosts only in AWS). */
export async function listForReview(
  deps: Pick<ConsoleDeps, "mcp">,
  server: McpServerItem,
): Promise<{ ok: true; tools: readonly ListedTool[] } | { ok: false; issues: readonly AdminIssue[] }> {
  const r = await listServerTools(deps.mcp.connect, server);
  return r.ok ? r : { ok: false, issues: [{ path: "url", message: r.detail }] };
}

/**
 * The operator's choices from the review form. Only a tool given a class is pinned: "not offered" (or a missing
 * choice) pins nothing, so a tool nobody chose is never offered (G20). Each choice must be of the definition the
 * page showed (its hash): a definition that changed between the page and the save is refused, never pinned unseen.
 */
export function choicesFromForm(
  f: Form,
  listed: readonly ListedTool[],
): { ok: true; choices: ToolChoice[] } | { ok: false; issues: AdminIssue[] } {
  const choices: ToolChoice[] = [];
  const issues: AdminIssue[] = [];
  for (let i = 0; i < MAX_TOOLS && typeof f[`tool.${i}.name`] === "string"; i++) {
    const name = f[`tool.${i}.name`] as string;
    const cls = formText(f, `tool.${i}.class`);
    if (cls === "" || cls === "none") continue;
    const parsed = mcpToolClass.safeParse(cls);
    if (!parsed.success) {
      issues.push({ path: `tools.${name}`, message: "class must be read, act or restricted" });
      continue;
    }
    const live = listed.find((t) => t.name === name);
    if (!live || definitionHash(live) !== formText(f, `tool.${i}.hash`)) {
      issues.push({
        path: `tools.${name}`,
        message: "its definition changed (or it is gone) since this page listed it: review it again",
      });
      continue;
    }
    const exposedAs = formText(f, `tool.${i}.exposedAs`);
    const principal = formText(f, `tool.${i}.principal`);
    choices.push({
      name,
      class: parsed.data,
      ...(exposedAs ? { exposedAs } : {}),
      ...(principal ? { principalArgument: principal } : {}),
    });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, choices };
}
