import { modelFacts, RECOMMENDED } from "../../shared/model/index.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, skipped, warn } from "./report.ts";

/** The header the Messages API and the Models API both require (shared/model/anthropic.ts sends the same). */
const ANTHROPIC_VERSION = "2023-06-01";

/**
 * Each Claude API model of the catalog, asked of the service itself: the Models API (`GET /v1/models/{id}`)
 * answers a model the key may call and 404s a retired or unknown one, whose every Messages request would fail.
 *
 * The key is the operator's own, from their environment (the entry's `apiKeyEnv`, else `ANTHROPIC_API_KEY`): a
 * deployed `apiKeySecret` is never read (G16), and which key asks does not change whether a model is retired.
 * With no key the service cannot be asked: a model the facts table marks retired still fails, anything else is
 * skipped, naming the variable to set.
 */
export async function checkAnthropicModels(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  for (const m of ctx.config.models) {
    if (m.provider !== "anthropic") continue;
    const check = `model ${m.id}`;
    const facts = modelFacts("anthropic", m.model);
    const old = facts?.status === "old" ? facts : null;
    const fix = `set "model": "${RECOMMENDED.anthropic}" in the catalog entry (\`curl -s ${m.baseUrl}/v1/models -H "x-api-key: $ANTHROPIC_API_KEY" -H "anthropic-version: ${ANTHROPIC_VERSION}"\` lists the models your key can call)`;
    const keyName = m.apiKeyEnv ?? "ANTHROPIC_API_KEY";
    const key = ports.env[keyName];
    if (!ports.http || !key) {
      out.push(
        old
          ? fail(check, `${m.model} is ${old.name}, ${old.note ?? "an old model"} (the facts table)`, fix)
          : skipped(
              check,
              `the Claude API was not asked about ${m.model}: no ${keyName} in this environment`,
              `export ${keyName}=<your key> and run the doctor again (the doctor never reads a deployed secret's value)`,
            ),
      );
      continue;
    }
    out.push(await askModelsApi(check, m.baseUrl, m.model, key, ports.http, old, fix));
  }
  return out;
}

async function askModelsApi(
  check: string,
  baseUrl: string,
  model: string,
  key: string,
  http: NonNullable<DoctorPorts["http"]>,
  old: { name: string; note?: string } | null,
  fix: string,
): Promise<DoctorCheck> {
  const url = `${baseUrl.replace(/\/+$/, "")}/v1/models/${encodeURIComponent(model)}`;
  let res: Response;
  try {
    res = await http(url, {
      headers: { "x-api-key": key, "anthropic-version": ANTHROPIC_VERSION },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return fail(
      check,
      `GET ${url} failed (${why})`,
      "check the network and the entry's baseUrl, then run the doctor again",
    );
  }
  const body = (await res.json().catch(() => null)) as {
    display_name?: unknown;
    error?: { type?: unknown; message?: unknown };
  } | null;
  const said = typeof body?.error?.message === "string" ? `: ${body.error.message}` : "";
  if (res.status === 404)
    return fail(
      check,
      `the Claude API has no model ${model} (404${said}): it is retired or was never a model id`,
      fix,
    );
  if (res.status === 401 || res.status === 403)
    return fail(
      check,
      `the Claude API refused the key in this environment (HTTP ${res.status}${said})`,
      "use a valid key for the organization the deployment bills, then run the doctor again",
    );
  if (!res.ok)
    return fail(check, `GET ${url} answered HTTP ${res.status}${said}`, "run the doctor again in a minute");
  const name = typeof body?.display_name === "string" ? body.display_name : model;
  // The service still serves it; the facts table says it is on its way out.
  if (old) return warn(check, `${model} (${name}) still answers, but ${old.note ?? "it is old"}`, fix);
  return ok(check, `${model} (${name}) on the Claude API`);
}
