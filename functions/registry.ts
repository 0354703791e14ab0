import { builtinTools } from "../shared/tools/builtin/index.ts";
import { ToolRegistry } from "../shared/tools/registry.ts";
import type { Resolver } from "../shared/tools/resolver.ts";
import { operatorResolvers, operatorTools } from "../tools/index.ts";

/** Every tool this deployment knows: the built-ins and the operator's own from `tools/`. */
export function defaultRegistry(): ToolRegistry {
  return new ToolRegistry([...builtinTools(), ...operatorTools()]);
}

/** Every resolver this deployment knows (from `tools/`). */
export function defaultResolvers(): readonly Resolver[] {
  return operatorResolvers();
}
