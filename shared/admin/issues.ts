import type { z } from "zod";

/** One validation problem, addressed like `agents[0].address` so an operator can find it in the document. */
export interface AdminIssue {
  readonly path: string;
  readonly message: string;
}

/** `["agents", 0, "address"]` → `agents[0].address`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(document)" : out;
}

export function zodIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): AdminIssue[] {
  return error.issues.map((i) => ({ path: formatPath([...prefix, ...i.path]), message: i.message }));
}

/** One line per issue, for logs and CLI output. */
export function issuesText(issues: readonly AdminIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}
