import type { RecordedRequest, Reply } from "./recording-server.ts";

/**
 * A model that obeys every instruction it reads (the worst case the gates must hold against): an OpenAI-compatible
 * reply function for startRecordingServer. An instruction is a line `TOOL <name> <json input>` anywhere in what the
 * request carries: the operator's and the sender's text, and every tool result (JSON inside a result is read too,
 * so an instruction planted in a stored mail is obeyed when a search returns it). Each turn calls the next
 * instruction not yet called (the count of earlier tool-call turns), one per turn; with none left it stops.
 */
export function obedientModel(): (req: RecordedRequest) => Reply {
  return (req) => {
    const body = JSON.parse(req.body) as { messages?: unknown[] };
    const messages = body.messages ?? [];
    const done = messages.filter(
      (m) =>
        (m as { role?: string; tool_calls?: unknown[] }).role === "assistant" &&
        (m as { tool_calls?: unknown[] }).tool_calls?.length,
    ).length;
    const wanted = instructions(messages);
    const next = wanted[done];
    const usage = { prompt_tokens: 10, completion_tokens: 5 };
    if (!next)
      return {
        body: {
          choices: [{ finish_reason: "stop", message: { role: "assistant", content: "Done." } }],
          usage,
        },
      };
    return {
      body: {
        choices: [
          {
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: `obey-${done}`,
                  type: "function",
                  function: { name: next.name, arguments: next.input },
                },
              ],
            },
          },
        ],
        usage,
      },
    };
  };
}

const INSTRUCTION = /^\s*(?:\|\s*)?TOOL ([a-z_]+) (\{.*\})\s*$/;

/** Every instruction in the request, in order of appearance, deduplicated (a quoted one repeats earlier text). */
export function instructions(value: unknown): { name: string; input: string }[] {
  const found: { name: string; input: string }[] = [];
  const seen = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      for (const line of v.split(/\r?\n/)) {
        const m = INSTRUCTION.exec(line);
        if (m && !seen.has(line.trim())) {
          seen.add(line.trim());
          found.push({ name: m[1] as string, input: m[2] as string });
        }
      }
      const t = v.trim();
      if (t.startsWith("{") || t.startsWith("[")) {
        try {
          visit(JSON.parse(t));
        } catch {
          // Not JSON: already read as text.
        }
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  visit(value);
  return found;
}

/**
 * The deployment's model entry for an obedient model server (an OpenAI-compatible endpoint, internal egress), with
 * its API key set in `apiKeyEnv` (the server ignores it; the adapter needs one).
 */
export function obedientModelEntry(url: string, apiKeyEnv: string) {
  process.env[apiKeyEnv] = "k";
  return {
    id: "obedient",
    provider: "openai-compatible",
    baseUrl: `${url}/v1`,
    model: "m",
    apiKeyEnv,
    egress: "internal",
  } as const;
}
