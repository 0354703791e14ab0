import type { DeploymentConfig, ModelEntry } from "../../config/index.ts";
import { PosternError } from "../../errors.ts";
import { fail, ok } from "../../result.ts";
import type { EgressDeclaration, ToolResult } from "../../tool-framework/index.ts";
import type { CallCheck } from "../loop/call-check.ts";

/**
 * The egress gate (G13): what may enter the context of a model outside the operator's boundary. Checked on the
 * call (every class named anywhere in the input, so a filter cannot be used as an oracle over a restricted class)
 * and on the result (every class referenced, so restricted data cannot arrive sideways through a linked record).
 * Fail-closed both ways: a tool without a classification, or a classifier that throws, is refused.
 * Internal models (inside the operator's boundary) are not restricted.
 */
export function egressCheck(opts: {
  model: ModelEntry | undefined;
  policy: DeploymentConfig["egress"];
  /** Where declarations come from: the tool registry (or resolvers, which declare the same). */
  registry: { get(name: string): { readonly egress: EgressDeclaration } | undefined };
}): CallCheck {
  const restricted = new Set(opts.policy.restrictedClasses);
  return async (phase, call) => {
    // An unknown model is treated as external: fail closed.
    if (opts.model?.egress === "internal") return ok();
    const tool = opts.registry.get(call.name);
    const egress = tool?.egress;
    if (!egress) return fail("egress-unclassified", `${call.name} declares no egress classification`);
    if (egress.kind === "structure" || egress.kind === "exempt") return ok();
    if (egress.kind !== "classified") return fail("egress-unclassified", `${call.name}: unknown egress kind`);
    // Record content never goes to an external model under the default policy: refuse before running, so
    // not even the result's shape (counts, hits) leaks.
    if (egress.record && !opts.policy.externalRecordContent) {
      return fail(
        "egress-record-content",
        `${call.name} returns record content, which this model may not receive`,
      );
    }
    let classes: readonly string[];
    try {
      classes =
        phase === "input"
          ? await egress.classifyInput(call.input)
          : await egress.classifyResult(resultData(call.result));
      if (!Array.isArray(classes)) throw new PosternError("dependency-failed", "classifier returned no list");
    } catch (err) {
      return fail(
        "egress-classifier-error",
        `${call.name}: classification failed (${(err as Error)?.message ?? "error"})`,
      );
    }
    const hit = classes.find((c) => restricted.has(c));
    if (hit)
      return fail("egress-restricted-class", `${call.name}: data of class "${hit}" may not reach this model`);
    return ok();
  };
}

function resultData(result: ToolResult | undefined): unknown {
  return result?.ok ? result.data : undefined;
}
