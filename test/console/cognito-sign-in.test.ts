import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createConsoleApp } from "../../console/app.ts";
import { cognitoSignIn } from "../../console/auth/cognito-sign-in.ts";
import { signIdToken } from "../../console/auth/local-issuer.ts";
import type { ConsoleDeps } from "../../console/deps.ts";
import { recordingLogger as recorder } from "../fakes/recording-logger.ts";

const POOL = { userPoolId: "eu-west-1_TestPool1", clientId: "console-client" };
const DOMAIN = "https://postern-test.auth.eu-west-1.amazoncognito.com";
const ORIGIN = "https://abc.lambda-url.eu-west-1.on.aws";

function setup() {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = publicKey.export({ format: "jwk" }) as { n: string; e: string };
  const jwks = { keys: [{ kty: "RSA", kid: "k1", alg: "RS256", use: "sig", n: jwk.n, e: jwk.e }] };
  const exchanges: URLSearchParams[] = [];
  const idToken = signIdToken(
    privateKey,
    "k1",
    POOL,
    { sub: randomUUID(), email: "ops@example.com", groups: ["admins"] },
    3600,
    new Date(),
  );
  const fakeFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    exchanges.push(new URLSearchParams(String(init?.body)));
    return new Response(JSON.stringify({ id_token: idToken, access_token: "a", expires_in: 3600 }), {
      status: 200,
    });
  }) as typeof fetch;
  const signIn = cognitoSignIn({ ...POOL, domain: DOMAIN, jwks, fetch: fakeFetch });
  const console = createConsoleApp({ logger: recorder() } as unknown as ConsoleDeps, signIn, {
    origin: ORIGIN,
  });
  // As the function URL delivers them: with its own host as Host (anything else is 421).
  const app = {
    request: (url: string, init: { headers?: Record<string, string> } = {}) =>
      console.request(url, { ...init, headers: { host: new URL(ORIGIN).host, ...init.headers } }),
  };
  return { app, exchanges, idToken };
}

describe("sign-in through Cognito's hosted pages (code + PKCE)", () => {
  it("sends an unsigned browser to sign-in, and sign-in to Cognito with state and an S256 challenge", async () => {
    const { app } = setup();
    const home = await app.request(`${ORIGIN}/`);
    expect(home.status).toBe(302);
    expect(home.headers.get("location")).toBe("/auth/sign-in");
    const r = await app.request(`${ORIGIN}/auth/sign-in`);
    const to = new URL(r.headers.get("location") ?? "");
    expect(`${to.origin}${to.pathname}`).toBe(`${DOMAIN}/oauth2/authorize`);
    expect(to.searchParams.get("client_id")).toBe(POOL.clientId);
    expect(to.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback`);
    expect(to.searchParams.get("code_challenge_method")).toBe("S256");
    const cookie = r.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-postern-signin=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
  });

  it("refuses a callback whose state is not the one it sent", async () => {
    const { app, exchanges } = setup();
    const r = await app.request(`${ORIGIN}/auth/sign-in`);
    const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const cb = await app.request(`${ORIGIN}/auth/callback?code=c&state=forged`, { headers: { cookie } });
    expect(cb.status).toBe(401);
    expect(exchanges).toHaveLength(0);
  });

  it("exchanges the code with the PKCE verifier, verifies the ID token, and sets a __Host- session cookie", async () => {
    const { app, exchanges, idToken } = setup();
    const r = await app.request(`${ORIGIN}/auth/sign-in`);
    const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const state = new URL(r.headers.get("location") ?? "").searchParams.get("state");
    const challenge = new URL(r.headers.get("location") ?? "").searchParams.get("code_challenge");
    const cb = await app.request(`${ORIGIN}/auth/callback?code=the-code&state=${state}`, {
      headers: { cookie },
    });
    expect(cb.status).toBe(303);
    const sent = exchanges[0];
    expect(sent?.get("code")).toBe("the-code");
    expect(
      createHash("sha256")
        .update(sent?.get("code_verifier") ?? "")
        .digest("base64url"),
    ).toBe(challenge);
    const session = cb.headers.getSetCookie().find((c) => c.startsWith("__Host-postern-session="));
    expect(session).toContain(idToken);
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/Secure/i);
    expect(session).toMatch(/SameSite=Lax/i);
  });
});
