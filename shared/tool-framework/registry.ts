import { PosternError } from "../errors.ts";
import type { Tool } from "./tool.ts";

/** Every tool the engine knows (built-ins and the operator's `tools/`), by name. Names are unique. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  constructor(tools: readonly Tool[] = []) {
    for (const t of tools) this.register(t);
  }

  register(tool: Tool): void {
    // A second tool under one name would let a toolkit grant one while dispatch runs the other.
    if (this.#tools.has(tool.name))
      throw new PosternError("definition-invalid", `tool ${tool.name} is registered twice`);
    this.#tools.set(tool.name, tool);
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  list(): readonly Tool[] {
    return [...this.#tools.values()];
  }

  names(): readonly string[] {
    return [...this.#tools.keys()];
  }
}
