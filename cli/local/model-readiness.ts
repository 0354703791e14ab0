import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ModelEntry } from "../../shared/config/index.ts";

/**
 * Whether a catalog model can answer on this machine, without a run to find out: a run that reaches a missing
 * script or a server that is not there fails a minute later, with the cause only in the stack's log.
 *
 * - `reach` (what `npm start` asks of every agent's model): a scripted model's script file exists; an
 *   OpenAI-compatible server accepts a request at all (any HTTP answer).
 * - `call` (what the local doctor asks): the same, then a one-token call to the model, and a key the entry names
 *   is set. Bedrock needs AWS credentials: checked by `postern doctor --region`, not here.
 */
export type Readiness =
  | { readonly status: "ok"; readonly detail: string }
  | { readonly status: "fail" | "skipped"; readonly detail: string; readonly fix: string };

export interface ReadinessOptions {
  readonly depth: "reach" | "call";
  /** The config file's directory: a script path is relative to it. */
  readonly baseDir: string;
  /** The config file, as the operator names it in a fix. */
  readonly configFile: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly fetch?: typeof fetch;
  /** Per request. Default 3 s. */
  readonly timeoutMs?: number;
}

export async function modelReadiness(entry: ModelEntry, opts: ReadinessOptions): Promise<Readiness> {
  const where = `model ${entry.id} in ${opts.configFile}`;
  switch (entry.provider) {
    case "scripted": {
      const path = isAbsolute(entry.script) ? entry.script : resolve(opts.baseDir, entry.script);
      if (existsSync(path) && statSync(path).isFile()) return { status: "ok", detail: `script ${path}` };
      return {
        status: "fail",
        detail: `${where}: its script ${path} does not exist (a script path is relative to the config's folder)`,
        fix: `put the script at ${path}, or change "script" in ${opts.configFile}`,
      };
    }
    case "openai-compatible":
      return openAiReadiness(entry, where, opts);
    case "anthropic":
      return anthropicReadiness(entry, where, opts);
    case "bedrock":
      return {
        status: "skipped",
        detail: `${entry.modelId}: Bedrock is called with your AWS credentials`,
        fix: `postern doctor --region ${entry.region ?? "<region>"} checks it exists, may be invoked and has quota`,
      };
  }
}

const apiKey = (entry: { apiKeyEnv?: string | undefined }, env: NodeJS.ProcessEnv) =>
  entry.apiKeyEnv ? env[entry.apiKeyEnv] : undefined;

async function openAiReadiness(
  entry: Extract<ModelEntry, { provider: "openai-compatible" }>,
  where: string,
  opts: ReadinessOptions,
): Promise<Readiness> {
  const env = opts.env ?? process.env;
  const doFetch = opts.fetch ?? fetch;
  const signal = () => AbortSignal.timeout(opts.timeoutMs ?? 3000);
  const base = entry.baseUrl.replace(/\/+$/, "");
  const key = apiKey(entry, env);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  };
  try {
    // Any HTTP answer means a server is there; what it says about the model is the call's business below.
    await doFetch(`${base}/models`, { headers, signal: signal() });
  } catch (err) {
    return {
      status: "fail",
      detail: `${where}: nothing answers at ${entry.baseUrl} (${causeOf(err)})`,
      fix: `start the model server (e.g. \`ollama serve\`), or change "baseUrl" in ${opts.configFile}`,
    };
  }
  if (entry.apiKeyEnv && !key)
    return {
      status: "fail",
      detail: `${where}: ${entry.apiKeyEnv} is not set`,
      fix: `export ${entry.apiKeyEnv}=... before \`npm start\``,
    };
  if (opts.depth === "reach") return { status: "ok", detail: `${entry.baseUrl} answers` };
  try {
    const res = await doFetch(`${base}/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: entry.model,
        max_tokens: 1,
        messages: [{ role: "user", content: "Say OK." }],
      }),
      signal: signal(),
    });
    if (res.ok)
      return { status: "ok", detail: `${entry.model} at ${entry.baseUrl} answered a one-token call` };
    return {
      status: "fail",
      detail: `${where}: ${entry.baseUrl} refused a one-token call to ${entry.model}: HTTP ${res.status} ${await bodyText(res)}`,
      fix: `pull or serve the model (e.g. \`ollama pull ${entry.model}\`), or change "model" in ${opts.configFile}`,
    };
  } catch (err) {
    return {
      status: "fail",
      detail: `${where}: a one-token call to ${entry.model} got no answer (${causeOf(err)})`,
      fix: "check the model server's log; a first call may load the model, so try again",
    };
  }
}

async function anthropicReadiness(
  entry: Extract<ModelEntry, { provider: "anthropic" }>,
  where: string,
  opts: ReadinessOptions,
): Promise<Readiness> {
  const env = opts.env ?? process.env;
  if (!entry.apiKeyEnv)
    return {
      status: "skipped",
      detail: `its key is in ${entry.apiKeySecret ?? "a secret"}, read in AWS`,
      fix: `postern doctor --region <region> checks the secret; locally set "apiKeyEnv"`,
    };
  const key = apiKey(entry, env);
  if (!key)
    return {
      status: "fail",
      detail: `${where}: ${entry.apiKeyEnv} is not set`,
      fix: `export ${entry.apiKeyEnv}=... before \`npm start\``,
    };
  if (opts.depth === "reach") return { status: "ok", detail: `${entry.apiKeyEnv} is set` };
  try {
    const res = await (opts.fetch ?? fetch)("https://api.anthropic.com/v1/messages", {
      method: "POST",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({
        model: entry.model,
        max_tokens: 1,
        messages: [{ role: "user", content: "Say OK." }],
      }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    if (res.ok) return { status: "ok", detail: `${entry.model} answered a one-token call` };
    return {
      status: "fail",
      detail: `${where}: Anthropic's API refused a one-token call: HTTP ${res.status} ${await bodyText(res)}`,
      fix: `check ${entry.apiKeyEnv} and "model" in ${opts.configFile}`,
    };
  } catch (err) {
    return {
      status: "fail",
      detail: `${where}: Anthropic's API did not answer (${causeOf(err)})`,
      fix: "check this machine's connection to api.anthropic.com",
    };
  }
}

/** The first line of an error body, short: a server's words, shown as data. */
async function bodyText(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  return JSON.stringify(text.split("\n")[0]?.slice(0, 200) ?? "");
}

function causeOf(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return "timed out";
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
