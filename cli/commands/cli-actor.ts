import { hostname, userInfo } from "node:os";

/**
 * Who the audit log names for a CLI write: the operating-system user and machine (`cli:alice@laptop`). The CLI has
 * no sign-in of its own; whoever holds the AWS credentials or the local stack's files can write, and this is
 * what the machine knows of them. `POSTERN_ACTOR` names someone else (a CI job, a shared account's operator).
 */
export function cliActor(env: NodeJS.ProcessEnv = process.env): string {
  if (env.POSTERN_ACTOR) return `cli:${env.POSTERN_ACTOR}`;
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the machine is still worth naming.
  }
  return `cli:${user}@${hostname()}`;
}
