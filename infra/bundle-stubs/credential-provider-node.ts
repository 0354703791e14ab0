import { type FromEnvInit, fromEnv } from "@aws-sdk/credential-provider-env";
import type { AwsCredentialIdentity } from "@smithy/types";
import { unreachable } from "./unreachable.ts";

/**
 * The SDK's default credential chain as the pipeline functions run it in Lambda: the environment. Every client's
 * runtimeConfig imports `defaultProvider` from @aws-sdk/credential-provider-node, whose chain is env → SSO → ini →
 * process → web identity → container/IMDS; the links after env pull the SSO, SSO-OIDC, STS and sign-in clients
 * (@aws-sdk/nested-clients) and the IMDS and login providers: ~100 KB of each bundle that Lambda never runs
 * (LAMBDA_STUBS, infra/bundling.ts, lists the clients each function builds and why all of them take this chain).
 * Lambda (the on-demand model infra/constructs/pipeline-function.ts deploys) hands the execution role's keys to
 * the function in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, so the real chain always stops at
 * its first link, the very `fromEnv` called here (same credentials, same feature flag in the user agent).
 *
 * Its first link steps aside when a profile is named (`profile` or AWS_PROFILE); this stub refuses that, and a
 * process without the keys, with an error that names it: a deployment that changes where credentials come from
 * fails on its first AWS call instead of signing with something else. test/infra/bundle-stubs.test.ts holds it to
 * the real chain; test/infra/bundle-load.test.ts runs CDK's bundles of all three functions with environment keys.
 */

const WHY = "the pipeline functions take credentials from the environment only, as Lambda provides them";

/** Like the real chain's memoisation: resolved once, again only when within 5 minutes of an expiry. */
const needsRefresh = (c: AwsCredentialIdentity) =>
  c.expiration !== undefined && c.expiration.getTime() - Date.now() < 300_000;

export function defaultProvider(init: FromEnvInit & { readonly profile?: string } = {}) {
  const env = fromEnv(init);
  let credentials: AwsCredentialIdentity | undefined;
  return async (): Promise<AwsCredentialIdentity> => {
    if (credentials && !needsRefresh(credentials)) return credentials;
    const profile = init.profile ?? process.env.AWS_PROFILE;
    if (profile) return unreachable(`credential-provider-node: profile ${JSON.stringify(profile)}`, WHY);
    if (!process.env.AWS_ACCESS_KEY_ID || !process.env.AWS_SECRET_ACCESS_KEY)
      return unreachable("credential-provider-node: no AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY", WHY);
    credentials = await env();
    return credentials;
  };
}
