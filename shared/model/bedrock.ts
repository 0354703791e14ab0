import { type BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime";
import { parseConverseOutput, toConverseInput } from "./bedrock-wire.ts";
import { modelFailure, networkCode } from "./failure.ts";
import { modelFacts } from "./model-facts.ts";
import { type Attempt, type RetryOptions, withRetry } from "./retry.ts";
import type { ModelCapabilities, ModelFailure, ModelProvider } from "./types.ts";

export interface BedrockOptions {
  readonly name?: string;
  readonly modelId: string;
  /**
   * Build it with `maxAttempts: 1`: this adapter owns the retry policy (bounded, with an injectable sleep), and
   * the SDK's own retries would multiply with it.
   */
  readonly client: Pick<BedrockRuntimeClient, "send">;
  /** Per attempt, via the SDK's abortSignal. Default 120 s. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  /** Default: images and documents for Anthropic Claude models, which accept them in tool results; off otherwise. */
  readonly capabilities?: ModelCapabilities;
  /**
   * Send `cachePoint` checkpoints. Default: where the model's facts (model-facts.ts) say it takes them: Claude
   * after tools, system and messages; Nova after system and messages; none for other models.
   */
  readonly promptCache?: boolean;
}

/** Amazon Bedrock Converse: IAM auth (no keys), the default provider in AWS. */
export function bedrockModel(options: BedrockOptions): ModelProvider {
  const claude = /(^|[.:/])anthropic\./.test(options.modelId);
  const capabilities = options.capabilities ?? { supportsImages: claude, supportsDocuments: claude };
  // Prompt caching on Bedrock: Anthropic Claude and Amazon Nova models (Bedrock user guide, "Prompt caching").
  const promptCache = options.promptCache === false ? null : modelFacts("bedrock", options.modelId);
  const mapping = { capabilities, toolResultStatus: claude, promptCache };
  return {
    name: options.name ?? `bedrock:${options.modelId}`,
    capabilities,
    async generate(request) {
      const input = toConverseInput(options.modelId, request, mapping);
      return withRetry(async (): Promise<Attempt> => {
        const timeout = AbortSignal.timeout(options.timeoutMs ?? 120_000);
        const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
        try {
          const output = await options.client.send(new ConverseCommand(input), { abortSignal: signal });
          const parsed = parseConverseOutput(output);
          return { result: parsed.ok ? parsed : modelFailure(parsed.reason, parsed.detail) };
        } catch (err) {
          if (signal.aborted) {
            const why = timeout.aborted
              ? `no response within ${options.timeoutMs ?? 120_000} ms`
              : "aborted by the caller";
            return { result: modelFailure("model-timeout", `bedrock ${options.modelId}: ${why}`) };
          }
          return { result: classifyError(err, options.modelId) };
        }
      }, options.retry);
    },
  };
}

const THROTTLED = new Set(["ThrottlingException", "ServiceUnavailableException", "ModelNotReadyException"]);
const AUTH = new Set([
  "AccessDeniedException",
  "UnrecognizedClientException",
  "InvalidSignatureException",
  "ExpiredTokenException",
  "IncompleteSignatureException",
]);

/**
 * Known Bedrock service errors become failures; a 2xx the SDK could not deserialise is malformed; transport
 * errors are network failures. Anything else is not a provider error we understand, so it is rethrown rather
 * than recorded as something it is not.
 */
export function classifyError(err: unknown, modelId: string): ModelFailure {
  const e = err as {
    name?: unknown;
    message?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  const name = typeof e.name === "string" ? e.name : "Error";
  const message = typeof e.message === "string" ? e.message.split("\n")[0] : "";
  const status = e.$metadata?.httpStatusCode;
  const detail = `bedrock ${modelId}: ${name}${status ? ` (HTTP ${status})` : ""}: ${message}`;
  if (e.$fault === "client" || e.$fault === "server") {
    if (THROTTLED.has(name) || status === 429) return modelFailure("model-throttled", detail);
    if (AUTH.has(name) || status === 401 || status === 403) return modelFailure("model-auth", detail);
    if (name === "ModelTimeoutException" || status === 408) return modelFailure("model-timeout", detail);
    return modelFailure("model-http-error", detail, { status });
  }
  // The SDK reports an unparseable 2xx body as a SyntaxError carrying the response metadata.
  if (status !== undefined && status >= 200 && status < 300)
    return modelFailure("model-malformed-response", `${detail.slice(0, 300)}`);
  const code = networkCode(err) ?? http2Code(err);
  if (code !== undefined) return modelFailure("model-network", `bedrock ${modelId}: network error ${code}`);
  // No credentials in the environment (a local run without an AWS profile) is an auth problem, not a bug.
  if (name === "CredentialsProviderError") return modelFailure("model-auth", detail);
  throw err;
}

/** The SDK's default HTTP/2 handler reports a refused connection as a cancelled stream. */
function http2Code(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("ERR_HTTP2_") ? code : undefined;
}
