import type { ConsoleDeps } from "./deps.ts";

/**
 * What happened lately, across agents: accepted mail, refused and dropped mail, runs, sent mail and plans waiting
 * for an approver, newest first. Each line is engine-written from stored fields (addresses, reason codes, states):
 * no subject or body, and for refused mail only the verdict record (G4). The reads are bounded: per agent, its
 * newest messages and runs (one Query each), then today's and yesterday's refusals and the pending plans (one
 * Query each, paged): the cost follows the number of agents, not the size of any table.
 */
export type ActivityKind = "accepted" | "refused" | "dropped" | "run" | "sent" | "plan";

export interface ActivityItem {
  readonly at: string;
  readonly kind: ActivityKind;
  readonly agent: string | null;
  /** One line, engine-written. */
  readonly text: string;
  readonly href: string | null;
}

const PER_SOURCE = 10;

export async function recentActivity(
  deps: ConsoleDeps,
  agents: readonly string[],
  limit = 30,
): Promise<ActivityItem[]> {
  const link = (path: string, ...parts: string[]) =>
    parts.reduce((p, x) => p.replace("%s", encodeURIComponent(x)), path);
  const [perAgent, refusals, plans] = await Promise.all([
    Promise.all(
      agents.map(async (agent) => {
        const [messages, runs] = await Promise.all([
          deps.messages.listByAgent(agent, { limit: PER_SOURCE }),
          deps.index.runsByAgent(agent, { limit: PER_SOURCE }),
        ]);
        const items: ActivityItem[] = [
          ...messages.map(
            (m): ActivityItem => ({
              at: m.at,
              kind: m.direction === "in" ? "accepted" : "sent",
              agent,
              text:
                m.direction === "in"
                  ? `mail from ${m.from} accepted`
                  : `mail sent to ${[...m.to, ...m.cc].join(", ") || "(no visible recipient)"}`,
              href: `${link("/agents/%s/threads/%s", agent, m.threadId)}#m-${encodeURIComponent(m.id)}`,
            }),
          ),
          ...runs.items.map(
            (r): ActivityItem => ({
              at: r.createdAt,
              kind: "run",
              agent,
              text: `${r.kind} run ${r.state}${r.finishReason ? ` (${r.finishReason})` : ""}${r.failure ? `, failure ${r.failure.reason}` : ""}`,
              href: link("/runs/%s", r.runId),
            }),
          ),
        ];
        return items;
      }),
    ),
    deps.index.refusals({ limit: PER_SOURCE * 2, today: deps.now(), days: 2 }),
    deps.index.plansByState("pending", { limit: PER_SOURCE }),
  ]);
  const all: ActivityItem[] = [
    ...perAgent.flat(),
    ...refusals.items.map(
      (r): ActivityItem => ({
        at: r.refusalAt,
        kind: r.verdict === "drop" ? "dropped" : "refused",
        agent: r.agent,
        text: `mail to ${r.recipient} ${r.verdict === "drop" ? "dropped" : "refused"}: ${r.reason ?? "unknown"}`,
        href: link("/refusals?reason=%s", r.reason ?? ""),
      }),
    ),
    ...plans.items.map(
      (p): ActivityItem => ({
        at: p.planAt ?? "",
        kind: "plan",
        agent: p.agent,
        text: `plan waiting for an approver: ${p.ops.map((o) => o.tool).join(", ")}`,
        href: link("/plans/%s", p.runId),
      }),
    ),
  ];
  return all
    .filter((i) => i.at)
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
    .slice(0, limit);
}
