import { PosternError } from "../errors.ts";
import type { Tool } from "./tool.ts";

/** Every tool the engine knows (built-ins and the operator's `tools/`), by name. Names are unique. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  /** Tools from outside servers (MCP), rebuilt from each admin snapshot: replaced whole, never merged. */
  #adopted = new Map<string, Tool>();

  constructor(tools: readonly Tool[] = []) {
    for (const t of tools) this.register(t);
  }

  register(tool: Tool): void {
    // A second tool under one name would let a toolkit grant one while dispatch runs the other.
    if (this.#tools.has(tool.name))
      throw new PosternError("definition-invalid", `tool ${tool.name} is registered twice`);
    this.#tools.set(tool.name, tool);
  }

  /**
   * Replace the adopted tools (the reviewed MCP tools of the current admin snapshot). A name a registered tool
   * already has is refused and returned: an outside server must not shadow send_email. Returns the refused names.
   */
  adopt(tools: readonly Tool[]): readonly string[] {
    const next = new Map<string, Tool>();
    const refused: string[] = [];
    for (const t of tools) {
      if (this.#tools.has(t.name) || next.has(t.name)) refused.push(t.name);
      else next.set(t.name, t);
    }
    this.#adopted = next;
    return refused;
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name) ?? this.#adopted.get(name);
  }

  list(): readonly Tool[] {
    return [...this.#tools.values(), ...this.#adopted.values()];
  }

  /**
   * The registered tools' names, without adopted ones: what the system toolkits ("all") grant and what an admin
   * write checks MCP names against. An outside server's tool is granted only by a toolkit that names it.
   */
  names(): readonly string[] {
    return [...this.#tools.keys()];
  }
}
