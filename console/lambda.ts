import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import type { LambdaEvent } from "hono/aws-lambda";
import { handle } from "hono/aws-lambda";
import { loadRuntimeConfig, resourcesFromEnv } from "../shared/config/index.ts";
import { PosternError } from "../shared/errors.ts";
import { mcpSecretLookup } from "../shared/mcp/index.ts";
import { makeLogger } from "../shared/runtime/index.ts";
import { awsSecretSource, awsSecretsStore } from "../shared/secrets/index.ts";
import { makePlatform } from "../shared/store/index.ts";
import { secretManagerStore } from "../shared/webhooks/index.ts";
import { defaultRegistry } from "../tools/index.ts";
import { createConsoleApp } from "./app.ts";
import { cognitoSignIn } from "./auth/cognito-sign-in.ts";
import { consoleDeps } from "./deps.ts";
import { CONSOLE_ENV } from "./lambda-env.ts";

type LambdaApp = (event: LambdaEvent) => Promise<unknown>;
let app: LambdaApp | undefined;

/** The console behind its HTTPS function URL: built once per cold start, then one Hono request per invocation. */
export async function handler(event: LambdaEvent): Promise<unknown> {
  if (!app) {
    const env = process.env;
    const need = (k: string) => {
      const v = env[k];
      if (!v)
        throw new PosternError(
          "misconfigured",
          `missing environment variable ${k} (set by the PosternConsole construct)`,
        );
      return v;
    };
    const resources = resourcesFromEnv();
    const ssm = new SSMClient({ region: resources.region });
    const read = async (k: string) => {
      const value = (await ssm.send(new GetParameterCommand({ Name: need(k) }))).Parameter?.Value;
      if (!value) throw new PosternError("misconfigured", `the console's parameter named by ${k} is empty`);
      return value;
    };
    const [clientId, functionUrl] = await Promise.all([
      read(CONSOLE_ENV.clientIdParameter),
      read(CONSOLE_ENV.originParameter),
    ]);
    const logger = makeLogger("postern-console");
    const deps = consoleDeps(makePlatform({ resources, config: loadRuntimeConfig().config, logger }), {
      registry: defaultRegistry(),
      // Webhook signing secrets under postern/webhooks/ (written uncached: a rotation is read back at once).
      webhookSecrets: secretManagerStore(awsSecretsStore(), { ttlMs: 0 }),
      // MCP credentials under postern/mcp/, read only to list a server's tools for review; public hosts only.
      mcp: { secret: mcpSecretLookup(awsSecretSource()) },
    });
    const signIn = cognitoSignIn({
      userPoolId: need(CONSOLE_ENV.userPoolId),
      clientId,
      domain: need(CONSOLE_ENV.authDomain),
    });
    // Configuration, not the request: the function URL the construct stored (console/security.ts, ownOriginOnly).
    const origin = new URL(functionUrl).origin;
    app = handle(createConsoleApp(deps, signIn, { origin })) as unknown as LambdaApp;
  }
  return app(event);
}
