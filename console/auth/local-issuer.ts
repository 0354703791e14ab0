import { createSign, generateKeyPairSync, type KeyObject, randomBytes, randomUUID } from "node:crypto";
import type { Jwks } from "aws-jwt-verify/jwk";
import type { CognitoTarget } from "./verifier.ts";

/**
 * The local stack's stand-in for Cognito: an RSA key made at start (never written to disk) that signs ID tokens
 * with the claims Cognito puts in them. The console verifies them with the same Cognito verifier it uses in AWS.
 */
export interface LocalIssuer {
  readonly target: CognitoTarget;
  readonly jwks: Jwks;
  mint(
    claims: { sub: string; email: string; groups: readonly string[]; emailVerified?: boolean },
    ttlSeconds: number,
    now?: Date,
    /** Another audience than the console's client (tests: a token for another app must be refused). */
    clientId?: string,
  ): string;
}

export const LOCAL_POOL = {
  region: "us-east-1",
  userPoolId: "us-east-1_PosternLocal",
  clientId: "postern-local-console",
};

export function createLocalIssuer(): LocalIssuer {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomUUID();
  const jwk = publicKey.export({ format: "jwk" }) as { n: string; e: string };
  const target = { userPoolId: LOCAL_POOL.userPoolId, clientId: LOCAL_POOL.clientId };
  return {
    target,
    jwks: { keys: [{ kty: "RSA", kid, alg: "RS256", use: "sig", n: jwk.n, e: jwk.e }] },
    mint: (claims, ttl, now = new Date(), clientId = target.clientId) =>
      signIdToken(privateKey, kid, { ...target, clientId }, claims, ttl, now),
  };
}

/** An RS256 JWT shaped like a Cognito ID token. Exported for tests, which also forge and expire tokens with it. */
export function signIdToken(
  key: KeyObject,
  kid: string,
  target: CognitoTarget,
  claims: { sub: string; email: string; groups: readonly string[]; emailVerified?: boolean },
  ttlSeconds: number,
  now: Date,
): string {
  const iat = Math.floor(now.getTime() / 1000);
  const region = target.userPoolId.split("_")[0];
  const header = { alg: "RS256", kid, typ: "JWT" };
  const payload = {
    sub: claims.sub,
    email: claims.email,
    email_verified: claims.emailVerified ?? true,
    "cognito:groups": [...claims.groups],
    "cognito:username": claims.sub,
    iss: `https://cognito-idp.${region}.amazonaws.com/${target.userPoolId}`,
    aud: target.clientId,
    token_use: "id",
    auth_time: iat,
    iat,
    exp: iat + ttlSeconds,
    jti: randomBytes(12).toString("hex"),
  };
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const signingInput = `${b64(header)}.${b64(payload)}`;
  const signature = createSign("RSA-SHA256").update(signingInput).sign(key).toString("base64url");
  return `${signingInput}.${signature}`;
}
