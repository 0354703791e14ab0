import { CognitoJwtVerifier } from "aws-jwt-verify";
import type { Jwks } from "aws-jwt-verify/jwk";
import { type Principal, principalFromClaims } from "./principal.ts";

/** Verifies the session token on every request; null for anything that is not a valid, current ID token. */
export interface TokenVerifier {
  verify(token: string): Promise<Principal | null>;
}

export interface CognitoTarget {
  readonly userPoolId: string;
  readonly clientId: string;
}

/**
 * aws-jwt-verify's Cognito verifier: RS256 signature against the pool's JWKS, issuer, audience (the console's app
 * client), `token_use: id`, expiry. Locally the same verifier runs with the local issuer's keys preloaded, so the
 * code that admits a request is the code that runs in AWS. Every failure (forged, expired, wrong pool or client,
 * malformed) is a refusal: the verifier fails closed.
 */
export function cognitoVerifier(target: CognitoTarget, preloadedJwks?: Jwks): TokenVerifier {
  const verifier = CognitoJwtVerifier.create({
    userPoolId: target.userPoolId,
    clientId: target.clientId,
    tokenUse: "id",
  });
  if (preloadedJwks) verifier.cacheJwks(preloadedJwks);
  return {
    async verify(token) {
      if (!token || token.length > 8192) return null;
      try {
        const claims = (await verifier.verify(token)) as unknown as Record<string, unknown>;
        return principalFromClaims(claims);
      } catch {
        return null;
      }
    },
  };
}
