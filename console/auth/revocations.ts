import { createHash } from "node:crypto";
import type { KeyValueState } from "../../shared/ports/index.ts";

/**
 * Signed-out sessions. A session is an ID token in a cookie, valid until it expires whatever the browser does, so
 * clearing the cookie alone would leave a copied cookie (a shared machine, a proxy log) signed in. Sign-out
 * therefore records the token as revoked, server-side, until it would have expired; every request checks it.
 * Only a hash of the token is stored (a stored token would be a credential).
 */
export interface SessionRevocations {
  revoke(session: string): Promise<void>;
  isRevoked(session: string): Promise<boolean>;
}

/** The marker's key family in `state`; the console's role may put only these and `consoledecision#…` there. */
export const REVOKED_PREFIX = "consolesession#";

const keyOf = (session: string): string =>
  `${REVOKED_PREFIX}${createHash("sha256").update(session).digest("base64url")}`;

/** Markers in the `state` table, kept (TTL) as long as a session can last. */
export function stateRevocations(state: KeyValueState, sessionSeconds: number): SessionRevocations {
  return {
    async revoke(session) {
      // A second sign-out of the same session finds the marker: nothing more to do.
      await state.putIfAbsent(keyOf(session), "revoked", {}, sessionSeconds + 300);
    },
    async isRevoked(session) {
      return (await state.get(keyOf(session), "revoked")) !== null;
    },
  };
}
