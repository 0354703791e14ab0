import type { ContextResolver, Tool } from "../shared/tool-framework/index.ts";
import { builtinTools, ToolRegistry } from "../shared/tool-framework/index.ts";
import { customerProfileResolver, demoOrderBackend, orderTools } from "./orders.ts";
import { braveSearchToolFromEnv } from "./search-provider.ts";

/**
 * The operator's own tools, registered beside the built-ins. Add yours here. A tool that needs a key is listed
 * only when its key is configured, so an agent is never offered a tool that cannot work.
 */
const demoBackend = demoOrderBackend();

/** The operator's resolvers: context added before the first model call, granted through toolkits like tools. */
export function operatorResolvers(): ContextResolver[] {
  return [customerProfileResolver(demoBackend)];
}

export function operatorTools(env: NodeJS.ProcessEnv = process.env): Tool[] {
  // The example order tools run against the in-memory demo backend; point them at your order system.
  const tools: Tool[] = [...orderTools(demoBackend)];
  const brave = braveSearchToolFromEnv(env);
  if (brave) tools.push(brave);
  return tools;
}

/** Every tool this deployment knows: the built-ins and the operator's own (above). */
export function defaultRegistry(): ToolRegistry {
  return new ToolRegistry([...builtinTools(), ...operatorTools()]);
}

/** Every resolver this deployment knows. */
export function defaultContextResolvers(): readonly ContextResolver[] {
  return operatorResolvers();
}

/**
 * Every name a toolkit may grant: the registry's tools and the operator's resolvers (granted like tools). What an
 * admin write checks a toolkit's `tools` against.
 */
export function grantableNames(
  registry: ToolRegistry = defaultRegistry(),
  resolvers: readonly ContextResolver[] = defaultContextResolvers(),
): string[] {
  return [...registry.names(), ...resolvers.map((r) => r.name)];
}
