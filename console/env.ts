import type { Principal } from "./auth/principal.ts";

/** What the middleware establishes for a route: the verified principal, its session token and CSRF token. */
export interface ConsoleEnv {
  Variables: {
    principal: Principal;
    session: string;
    csrf: string;
    /** The console's configured origin (scheme://host[:port]); state changes must come from it. */
    origin: string;
  };
}
