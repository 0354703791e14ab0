import type { AdminSnapshot } from "../../admin/index.ts";
import type { AwsClients } from "../../aws/index.ts";
import type { LoadedConfig, Resources } from "../../config/index.ts";
import type { Logger } from "../../logger.ts";
import type { ConnectorOptions, McpRuntime, McpRuntimeOptions } from "../../mcp/index.ts";
import type { ModelProvider } from "../../model/index.ts";
import type { HostResolver } from "../../net/index.ts";
import type { OutboundRequest, StepPayload } from "../../payloads/index.ts";
import type { SecretSource } from "../../secrets/index.ts";
import type { Stores } from "../../store/index.ts";
import type { ContextResolver, ToolRegistry } from "../../tool-framework/index.ts";
import type { WebhookSink } from "../../webhooks/index.ts";

/** What only agent-step's composition root needs beside the platform. */
export interface StepParts {
  readonly registry: ToolRegistry;
  readonly secrets: SecretSource;
  /** Where the config's relative paths (model scripts) resolve. */
  readonly baseDir: string;
  /** Overrides the catalog (tests hand in a scripted or adversarial model). */
  readonly models?: (id: string) => ModelProvider | null;
  readonly leaseMs?: number;
  /** The operator's context resolvers (tools/index.ts): context added before the first model call. */
  readonly contextResolvers?: readonly ContextResolver[];
  /**
   * MCP tool servers (docs/mcp.md). `local` is set by the local stack and tests only, never in AWS: stdio servers
   * and loopback addresses become reachable. `resolve` replaces the system DNS resolver (tests).
   */
  readonly mcp?: Pick<ConnectorOptions, "local"> &
    Pick<McpRuntimeOptions, "connect"> & { readonly resolve?: HostResolver };
}

/** The platform and the parts, as the wiring reads them. */
export interface StepWiringOptions extends StepParts {
  readonly resources: Resources;
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
  readonly clients: AwsClients;
  readonly stores: Stores;
  readonly now: () => Date;
}

/** What every part of agent-step's wiring shares: the platform's repositories and the per-delivery reads. */
export interface Wired {
  readonly opts: StepWiringOptions;
  readonly stores: Stores;
  readonly now: () => Date;
  /** The admin snapshot of this delivery, its reviewed MCP tools adopted into the registry (adoptMcpTools). */
  loadAdmin(): Promise<AdminSnapshot>;
  /** MCP servers' reviewed tools and the offer check. */
  readonly mcp: McpRuntime;
  /** A message record, read once per delivery (records are written once and never change). */
  message: Stores["messages"]["get"];
  /** Forget what was kept for the last delivery (StepDeps.beginReceive). */
  beginReceive(): void;
  sendOutbound(request: OutboundRequest): Promise<void>;
  enqueue(message: StepPayload): Promise<void>;
  /** Signed events out (docs/events.md): the events queue, when the stack has one. */
  readonly webhooks: WebhookSink;
}
