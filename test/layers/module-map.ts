/**
 * The module map: every module under shared/ with its layer, and every folder outside it with what it may import.
 * It is an ALLOW-list: a folder under shared/ that is not listed here fails the check (a new module is private
 * until it is placed), and an import the map does not allow fails whatever folder it names. Checked by
 * test/unit/layers.test.ts over the whole tree (test/layers/import-graph.ts), and proven on deliberately bad files
 * in test/fixtures/layers. docs/architecture.md draws it.
 *
 * Adding a module is one line here: `billing: { layer: 3 }` makes shared/billing/ a core (its index.ts the front
 * door, layers 0-2 below it, and only the composition roots and the outside folders listed below may import it).
 *
 * Why not Biome's noRestrictedImports: its patterns match the import specifier as written ("../store/x.ts"), so
 * from shared/agent/loop/step.ts it cannot tell another module's inner file from a file of its own module, and an
 * override can only deny; an allow-list that covers a folder nobody listed needs the resolved import graph.
 */

export interface ModuleRule {
  /**
   * 0 foundations (config, result, errors, logger), 1 records and pure rules (admin, ports, mail, net, payloads,
   * model), 2 the gates (gate, tool-framework), 3 the cores (agent, intake, outbound), 4 the adapters (store,
   * queue, aws, runtime, trace). Layers 0-2 import their own layer and below; a core imports layers 0-2 (never
   * another core, an adapter or the AWS SDK) except in its composition roots; an adapter imports layers 0-2, the
   * other adapters, and a core's ports.ts (it implements them).
   */
  readonly layer: 0 | 1 | 2 | 3 | 4;
  /** May import `@aws-sdk/*` itself (the model providers, the adapters). */
  readonly sdk?: boolean;
}

/** Modules under shared/: a folder (its front door is index.ts) or a single file (it is its own front door). */
export const MODULES: Readonly<Record<string, ModuleRule>> = {
  config: { layer: 0 },
  "result.ts": { layer: 0 },
  "errors.ts": { layer: 0 },
  "logger.ts": { layer: 0 },
  admin: { layer: 1 },
  ports: { layer: 1 },
  mail: { layer: 1 },
  net: { layer: 1 },
  payloads: { layer: 1 },
  // One secrets store, reference syntax and cache (docs/secrets.md): below model, which reads keys through it.
  secrets: { layer: 1, sdk: true },
  model: { layer: 1, sdk: true },
  gate: { layer: 2 },
  "tool-framework": { layer: 2 },
  agent: { layer: 3 },
  intake: { layer: 3 },
  outbound: { layer: 3 },
  store: { layer: 4, sdk: true },
  queue: { layer: 4, sdk: true },
  aws: { layer: 4, sdk: true },
  runtime: { layer: 4 },
  trace: { layer: 4 },
  // Signed events out deliver what the cores report through the WebhookSink port (ports/webhooks.ts) to the
  // operator's endpoints: an adapter to the operator's systems, with its own queue worker (docs/events.md).
  webhooks: { layer: 4, sdk: true },
  // The MCP client turns an operator's reviewed tool servers into tools (docs/mcp.md): an adapter to outside
  // servers, built into the agent's registry by its composition root.
  mcp: { layer: 4 },
};

/**
 * A core's composition roots: the files that bind its ports to adapters (and the SQS entry over them). They may
 * import any module of shared/ through its front door; nothing else in a core may.
 */
export const COMPOSITION_ROOTS: readonly string[] = ["wiring.ts", "sqs-handler.ts"];

/**
 * A root too large for one file keeps its parts in a folder beside it: each file there is part of the root (it
 * names the adapters the root binds), so it has the root's imports.
 */
export const COMPOSITION_ROOT_FOLDERS: readonly string[] = ["wiring/"];

/**
 * Besides index.ts, a core's ports.ts is a second door, for the adapters that implement it (types only: the
 * interfaces and records the core is written against).
 */
export const PORTS_DOOR = "ports.ts";

export interface OutsideRule {
  /** Modules of shared/ it may import, through their front doors; `"any"` for every module. */
  readonly modules: readonly string[] | "any";
  /** Other top-level folders it may import. */
  readonly folders: readonly string[];
  readonly sdk: boolean;
  /**
   * Modules only the folder's composition roots may import (files named relative to the folder): the rest of the
   * folder reaches them through ports.
   */
  readonly rootsOnly?: { readonly modules: readonly string[]; readonly roots: readonly string[] };
}

const PIPELINE = [
  "agent",
  "intake",
  "outbound",
  "store",
  "queue",
  "aws",
  "runtime",
  "trace",
  "config",
  "model",
];
const FOUNDATIONS = ["result.ts", "errors.ts", "logger.ts"];

/** Folders outside shared/. Tests and benchmarks are not listed: they may read a module's inner files to test them. */
export const OUTSIDE: Readonly<Record<string, OutsideRule>> = {
  /** The Lambda handlers: wiring only, over the cores' and adapters' front doors (never the gate or mail rules). */
  functions: {
    modules: [...PIPELINE, "webhooks", "secrets", ...FOUNDATIONS],
    folders: ["tools"],
    sdk: false,
  },
  /** The operator's tools see Postern only through their ToolContext (G12). */
  tools: { modules: ["tool-framework", "net", ...FOUNDATIONS], folders: [], sdk: false },
  /** The CDK app: the deployment config, the table list and log names, the model facts; never a core. */
  infra: { modules: ["config", "ports", "aws", "model", ...FOUNDATIONS], folders: ["console"], sdk: true },
  /** The operator's CLI and console read every module, but only through its front door. */
  cli: { modules: "any", folders: ["console", "infra", "tools"], sdk: true },
  /**
   * The console reads through ports (shared/ports, shared/admin's AdminEditor); only its composition root,
   * deps.ts, and the two entry points that build a platform for it, may import the store.
   */
  console: {
    modules: "any",
    folders: ["tools"],
    sdk: true,
    rootsOnly: { modules: ["store"], roots: ["deps.ts", "lambda.ts", "server.ts"] },
  },
  bin: { modules: [], folders: ["cli"], sdk: false },
};
