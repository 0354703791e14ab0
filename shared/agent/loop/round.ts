import type { AgentItem } from "../../admin/index.ts";
import type { ModelFailureReason } from "../../model/index.ts";
import type { FinalRunState } from "../../ports/index.ts";
import type { LoadedRun, RunEndReason, StepDeps } from "../ports.ts";
import type { StepKnowledge } from "./step-knowledge.ts";
import type { RunGateInput } from "./toolkits.ts";

export type StepOutcome =
  | {
      readonly status: "skipped";
      readonly reason: "run-missing" | "run-not-running" | "round-done" | "agent-missing";
    }
  | { readonly status: "busy" }
  | { readonly status: "retry"; readonly reason: ModelFailureReason }
  | { readonly status: "continued"; readonly next: number }
  | {
      readonly status: "finished";
      readonly state: FinalRunState;
      readonly reason: RunEndReason;
    };

export /** One round of one run, as the parts of a step share it. */
interface Round {
  readonly deps: StepDeps;
  readonly run: LoadedRun;
  readonly agent: AgentItem;
  readonly gate: RunGateInput;
  readonly round: number;
  /** Tool results by idempotency key: this round's, as far as a delivery may have stored them. */
  readonly cache: StepDeps["cache"];
  /** What the message said about the run, heeded only on the round's first claim (StepPayload). */
  readonly known: StepKnowledge;
  /** Set when this delivery proposed an operation (G14): the run then has a plan. */
  readonly proposals: { made: boolean };
  /** The queue's last delivery of this message: a retryable failure now ends the run instead. */
  readonly lastDelivery: boolean;
  record(type: string, data: Record<string, unknown>): Promise<void>;
}
