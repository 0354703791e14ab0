import { type McpServerItem, type McpToolPin, mcpServerItem } from "../admin/index.ts";
import { type FailWithDetail, fail, type Ok } from "../result.ts";
import { parseSecretReference, type SecretRef, type SecretSource } from "../secrets/index.ts";
import { comparePins, PIN_PREDATES_COVERAGE } from "./compare-pins.ts";
import { mcpFailure } from "./mcp-tool.ts";
import type { ListedTool, McpConnector } from "./open-session.ts";

/**
 * Registering and reviewing a server, as `postern mcp` and the console both do it: the item from what the operator
 * typed (secret references only, never a value: G16), one listing of the live tools, and each tool's state against
 * the pins (G20). What to pin is the operator's choice (pinTools).
 */

/** What an operator gives for a server (the CLI's flags, the console's form). */
export interface McpServerInput {
  readonly url?: string | undefined;
  readonly command?: string | undefined;
  readonly args?: readonly string[] | undefined;
  readonly bearerSecret?: string | undefined;
  readonly oauthTokenUrl?: string | undefined;
  readonly oauthClientId?: string | undefined;
  readonly oauthSecret?: string | undefined;
  readonly oauthScope?: string | undefined;
  readonly timeoutMs?: number | undefined;
  readonly maxCallsPerRun?: number | undefined;
  readonly dataClasses?: readonly string[] | undefined;
  readonly recordContent?: boolean | undefined;
}

/** How the caller names the inputs a usage message mentions: the CLI its flags, the console its form's words. */
export type InputNames = Readonly<
  Record<"url" | "command" | "bearerSecret" | "oauthTokenUrl" | "oauthClientId" | "oauthSecret", string>
>;

const FORM_NAMES: InputNames = {
  url: "a URL",
  command: "a command",
  bearerSecret: "a bearer secret",
  oauthTokenUrl: "an OAuth token URL",
  oauthClientId: "a client id",
  oauthSecret: "a client secret reference",
};

/** `usage`: the input contradicts itself (two auth kinds, a URL and a command); `invalid`: the item's schema refused it. */
export type McpInputResult = Ok<{ readonly item: McpServerItem }> | FailWithDetail<"usage" | "invalid">;

function authOf(
  o: McpServerInput,
  n: InputNames,
): Ok<{ readonly auth: Record<string, unknown> }> | FailWithDetail<"usage"> {
  if (o.bearerSecret && o.oauthTokenUrl)
    return fail("usage", `${n.bearerSecret} and ${n.oauthTokenUrl} exclude each other`);
  if (o.bearerSecret) return { ok: true, auth: { kind: "bearer", secret: o.bearerSecret } };
  if (o.oauthTokenUrl) {
    if (!o.oauthClientId || !o.oauthSecret)
      return fail("usage", `OAuth client credentials need ${n.oauthClientId} and ${n.oauthSecret}`);
    return {
      ok: true,
      auth: {
        kind: "oauth-client-credentials",
        tokenUrl: o.oauthTokenUrl,
        clientId: o.oauthClientId,
        secret: o.oauthSecret,
        ...(o.oauthScope ? { scope: o.oauthScope } : {}),
      },
    };
  }
  return { ok: true, auth: { kind: "none" } };
}

/** The server item an input describes, with no tools reviewed yet (nothing is offered until the operator chooses). */
export function mcpServerFromInput(
  id: string,
  o: McpServerInput,
  names: InputNames = FORM_NAMES,
): McpInputResult {
  if (Boolean(o.url) === Boolean(o.command))
    return fail("usage", `give exactly one of ${names.url} and ${names.command}`);
  const auth = authOf(o, names);
  if (!auth.ok) return auth;
  const parsed = mcpServerItem.safeParse({
    id,
    transport: o.url ? "http" : "stdio",
    ...(o.url ? { url: o.url } : {}),
    ...(o.command ? { command: o.command, args: [...(o.args ?? [])] } : {}),
    auth: auth.auth,
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.maxCallsPerRun !== undefined ? { maxCallsPerRun: o.maxCallsPerRun } : {}),
    ...(o.dataClasses && o.dataClasses.length > 0 ? { dataClasses: [...o.dataClasses] } : {}),
    ...(o.recordContent === false ? { recordContent: false } : {}),
  });
  if (!parsed.success)
    return fail(
      "invalid",
      parsed.error.issues.map((i) => `${i.path.join(".") || "(item)"}: ${i.message}`).join("\n"),
    );
  return { ok: true, item: parsed.data };
}

/** An item's secret reference as the secret source reads it (the one syntax: docs/secrets.md). */
export function mcpSecretLookup(secrets: SecretSource): (ref: string) => Promise<string | undefined> {
  return (ref) => secrets.get(credentialRef(ref));
}

/** The registrations written before the one syntax named an env var bare (`CRM_TOKEN`); kept for one release. */
const LEGACY_ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * `secretsmanager:postern/...` and `env:VAR` are read by the one parser (shared/secrets); a bare upper-case name is
 * the old env-var form (the source logs its deprecation); anything else (a Secrets Manager ARN) is a secret id.
 */
export function credentialRef(ref: string): SecretRef {
  const parsed = parseSecretReference(ref);
  if (parsed.ok) return parsed.ref.kind === "env" ? { env: parsed.ref.variable } : { secret: ref };
  return LEGACY_ENV_NAME.test(ref) ? { env: ref } : { secret: ref };
}

/**
 * One connection, one listing, closed again. A server that cannot be listed says why in our words (the reason
 * code and mcpFailure's detail): never a secret's value, never the server's own error message.
 */
export async function listServerTools(
  connect: McpConnector,
  server: McpServerItem,
): Promise<Ok<{ readonly tools: readonly ListedTool[] }> | FailWithDetail<"mcp-unlisted">> {
  let session: Awaited<ReturnType<McpConnector>> | undefined;
  try {
    session = await connect(server);
    return { ok: true, tools: await session.listTools() };
  } catch (err) {
    const f = mcpFailure(server, err);
    return fail("mcp-unlisted", `could not list ${server.id}'s tools: ${f.reason}: ${f.detail}`);
  } finally {
    await session?.close().catch(() => undefined);
  }
}

/** A live tool against its pin: offered only when `reviewed`. */
export type ReviewState = "reviewed" | "changed" | "unreviewed";

export interface ReviewRow {
  readonly tool: ListedTool;
  readonly state: ReviewState;
  readonly pin?: McpToolPin | undefined;
  /** `changed` only because the pin predates the coverage of titles and output schemas (compare-pins.ts). */
  readonly pinPredatesCoverage?: boolean;
}

/** Every listed tool with its state, and the pinned tools the server no longer lists (GONE, withheld). */
export function reviewStates(
  listed: readonly ListedTool[],
  pins: readonly McpToolPin[],
): { readonly rows: readonly ReviewRow[]; readonly gone: readonly McpToolPin[] } {
  const cmp = comparePins(listed, pins);
  const rows = listed.map((tool): ReviewRow => {
    const pin = pins.find((p) => p.name === tool.name);
    const state: ReviewState = cmp.verified.some((p) => p.name === tool.name)
      ? "reviewed"
      : cmp.changed.some((c) => c.pin.name === tool.name)
        ? "changed"
        : "unreviewed";
    const outdated = cmp.changed.some((c) => c.pin.name === tool.name && c.hash === PIN_PREDATES_COVERAGE);
    return { tool, state, pin, ...(outdated ? { pinPredatesCoverage: true } : {}) };
  });
  return { rows, gone: cmp.missing };
}

/** How a state is written for an operator (the CLI's review and the console's review page say the same). */
export const REVIEW_STATE_TEXT: Readonly<Record<ReviewState | "gone", string>> = {
  reviewed: "reviewed",
  changed: "CHANGED since review (withheld)",
  unreviewed: "not reviewed (never offered)",
  gone: "GONE from the server (withheld)",
};

/** What an operator reads beside a tool whose pin predates the coverage of titles and output schemas. */
export const PIN_PREDATES_COVERAGE_TEXT =
  "its description and input schema are as reviewed, but it has a title or an output schema, which pins written before they were covered do not hold: read them and pin the tool again with --tools (until then it is withheld)";
