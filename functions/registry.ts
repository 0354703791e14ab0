import { builtinTools } from "../shared/tools/builtin/index.ts";
import { ToolRegistry } from "../shared/tools/registry.ts";
import { operatorTools } from "../tools/index.ts";

/** Every tool this deployment knows: the built-ins and the operator's own from `tools/`. */
export function defaultRegistry(): ToolRegistry {
  return new ToolRegistry([...builtinTools(), ...operatorTools()]);
}
