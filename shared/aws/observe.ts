/**
 * An observer of the AWS SDK commands a client issues: service, operation, the command's input and, when the
 * call failed, the error's name. Production passes none; the local stack and the tests pass one to hold our
 * functions to AWS's contracts (which IAM actions each call needs, test/infra/aws-contract) and to count calls
 * per mail (npm run bench:cost). It sees the input as the SDK sends it (lib-dynamodb already marshalled).
 */
export interface ObservedCall {
  /** `DynamoDB`, `S3`, `SQS`, `SESv2`, `BedrockRuntime`, `SecretsManager`, `SSM`, ... */
  readonly service: string;
  /** `GetItem`, `PutObject`, `SendEmail`, ... */
  readonly operation: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** The error's name (`NoSuchKey`, `ConditionalCheckFailedException`) when the call failed. */
  readonly error?: string;
  /** DynamoDB's capacity units for the call (observed calls ask for them: ReturnConsumedCapacity TOTAL). */
  readonly capacityUnits?: number;
}

export type CallObserver = (call: ObservedCall) => void;

interface MiddlewareContext {
  readonly clientName?: string;
  readonly commandName?: string;
}
type Handler = (args: { input: object }) => Promise<unknown>;
interface ObservableClient {
  readonly middlewareStack: {
    add(
      middleware: (next: Handler, context: MiddlewareContext) => Handler,
      options: { step: "initialize"; name: string; override: boolean },
    ): void;
  };
}

const strip = (name: string | undefined, suffix: string) =>
  (name ?? "?").endsWith(suffix) ? (name ?? "?").slice(0, -suffix.length) : (name ?? "?");

/** Report every command `client` sends to `observe`, once, after it settles. Returns the client. */
export function observeCalls<C extends ObservableClient>(client: C, observe: CallObserver | undefined): C {
  if (!observe) return client;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const call = {
        service: strip(context.clientName, "Client"),
        operation: strip(context.commandName, "Command"),
        input: args.input as Record<string, unknown>,
      };
      // Observed DynamoDB calls report their capacity units, so a benchmark can price writes and reads as AWS does.
      if (call.service === "DynamoDB")
        (args.input as Record<string, unknown>).ReturnConsumedCapacity ??= "TOTAL";
      try {
        const out = await next(args);
        const units = capacityOf(
          (out as { output?: { ConsumedCapacity?: unknown } }).output?.ConsumedCapacity,
        );
        observe(units === undefined ? call : { ...call, capacityUnits: units });
        return out;
      } catch (err) {
        observe({ ...call, error: err instanceof Error ? err.name : String(err) });
        throw err;
      }
    },
    { step: "initialize", name: "posternObserveCalls", override: true },
  );
  return client;
}

/** Total CapacityUnits of a DynamoDB response (one table, or a list for batch calls). */
function capacityOf(consumed: unknown): number | undefined {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  if (list.length === 0) return undefined;
  return list.reduce(
    (sum: number, c) => sum + Number((c as { CapacityUnits?: number }).CapacityUnits ?? 0),
    0,
  );
}
