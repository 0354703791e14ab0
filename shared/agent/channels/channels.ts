import type { ToolkitItem } from "../../admin/index.ts";
import type { DeploymentConfig } from "../../config/index.ts";
import { fail, ok } from "../../result.ts";
import type { EgressDeclaration, ToolRegistry } from "../../tool-framework/index.ts";
import type { CallCheck } from "../loop/call-check.ts";
import type { ChannelState } from "../ports.ts";

// Closed channels (G18). Once a run has read content wider than its sender's own (mail from the agent's archive
// that the sender could not see, or any data of a restricted class), the run may not carry it out: its network
// tools reach only hosts on a granting toolkit's `egressHosts` allow-list (none by default), and send_email writes
// only within the agent's outbound rules. The egress gate (G13) keeps data from the model provider; this keeps
// it from the tools' own ways out (a URL's query string, a search query, a mail to someone else).

/** Anything that names an egress declaration by tool or resolver name. */
interface EgressDeclarations {
  get(name: string): { readonly egress: EgressDeclaration } | undefined;
}

/** G18: whether a call may reach `host` once its run's channels are closed: only a granting toolkit's egressHosts. */
export function reachableWhileClosed(grantedBy: readonly ToolkitItem[], host: string): boolean {
  return grantedBy.some((k) => k.egressHosts.includes(host.toLowerCase()));
}

/**
 * G18 for network tools: a tool that declares `network` (web_fetch, web_search) runs in a closed run only to a
 * host on the allow-list of a toolkit that granted this call. Checked on the validated input, before the tool runs
 * (the request itself is the leak); the runtime checks it, not each tool.
 */
export function closedChannelCheck(opts: {
  readonly runId: string;
  readonly channel: ChannelState;
  readonly registry: ToolRegistry;
}): CallCheck {
  return async (phase, call) => {
    if (phase !== "input") return ok();
    const network = opts.registry.get(call.name)?.network;
    if (!network) return ok();
    if (!(await opts.channel.isClosed(opts.runId))) return ok();
    let host: string | null;
    try {
      host = network.host(call.input);
    } catch {
      host = null;
    }
    if (host !== null && reachableWhileClosed(call.grantedBy, host)) return ok();
    return fail(
      "egress-channel-closed",
      `${call.name} cannot reach ${host ?? "that address"}: this conversation has read data wider than its sender's ` +
        "own, so it may only reach hosts the operator allowed for it.",
    );
  };
}

/**
 * G18's other trigger: a result carrying a restricted data class closes the run's channels, whatever the model
 * (the egress gate lets internal models see such data; this makes sure it cannot then leave through a tool). A
 * classifier that fails closes them too: what it would have named is unknown. Never refuses the call itself.
 */
export function restrictedReadCheck(opts: {
  readonly runId: string;
  readonly channel: ChannelState;
  /** Where declarations come from: the tool registry, or the resolvers (which declare the same). */
  readonly registry: Pick<ToolRegistry, "get"> | EgressDeclarations;
  readonly policy: DeploymentConfig["egress"];
}): CallCheck {
  const restricted = new Set(opts.policy.restrictedClasses);
  return async (phase, call) => {
    if (phase !== "result" || !call.result?.ok) return ok();
    const declared = opts.registry.get(call.name);
    if (declared && "closesChannels" in declared && declared.closesChannels === true) {
      await opts.channel.close(opts.runId, "restricted-tool");
      return ok();
    }
    const egress = declared?.egress;
    if (egress?.kind !== "classified") return ok();
    try {
      const classes = await egress.classifyResult(call.result.data);
      if (classes.some((c) => restricted.has(c))) await opts.channel.close(opts.runId, "restricted-class");
    } catch {
      await opts.channel.close(opts.runId, "classifier-error");
    }
    return ok();
  };
}
