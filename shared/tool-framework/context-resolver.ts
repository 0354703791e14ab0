import type { AgentItem } from "../admin/index.ts";
import { PosternError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Fail, Ok } from "../result.ts";
import type { RunTrigger, VerifiedSender } from "./context.ts";
import type { EgressDeclaration } from "./tool.ts";

/** What a resolver knows: who the run is for, never anything the model said (it runs before the model). */
export interface ContextResolverInput {
  readonly agent: AgentItem;
  readonly sender: VerifiedSender | null;
  readonly trigger: RunTrigger;
  readonly logger: Logger;
}

/** `R`: the resolver's own codes (an operator's resolver names them); the run's trace records the code. */
export type ContextResolverResult<R extends string = string> = Ok<{ readonly data: unknown }> | Fail<R>;

/**
 * A resolver adds context before the first model call, e.g. the verified sender's customer record. Resolvers are
 * registered like tools (in `tools/index.ts`), reach an agent through its toolkits like tools (by name), carry the
 * same egress declaration, and whatever they return reaches the model inside the fence, as data.
 */
export interface ContextResolver {
  readonly name: string;
  readonly description: string;
  readonly egress: EgressDeclaration;
  resolve(ctx: ContextResolverInput): Promise<ContextResolverResult>;
}

export function defineContextResolver(spec: ContextResolver): ContextResolver {
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(spec.name))
    throw new PosternError("definition-invalid", `resolver name ${spec.name} must be snake_case`);
  if (!spec.egress)
    throw new PosternError(
      "definition-invalid",
      `resolver ${spec.name} declares no egress classification (G13)`,
    );
  return spec;
}
