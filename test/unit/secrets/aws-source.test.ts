import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { SSMClient } from "@aws-sdk/client-ssm";
import { afterEach, describe, expect, it } from "vitest";
import { awsSecretSource } from "../../../shared/secrets/aws-source.ts";
import {
  type RecordedRequest,
  type RecordingServer,
  type Reply,
  startRecordingServer,
} from "../../helpers/model-servers/recording-server.ts";

/** awsJson1_1 for Secrets Manager and SSM: the operation in `x-amz-target`, errors as `__type`. */
function awsJsonServer(req: RecordedRequest): Reply {
  const target = String(req.headers["x-amz-target"]);
  const body = JSON.parse(req.body);
  if (target === "secretsmanager.GetSecretValue") {
    if (body.SecretId === "postern/anthropic" || body.SecretId.startsWith("arn:aws:secretsmanager:"))
      return {
        body: {
          ARN: "arn:aws:secretsmanager:us-east-1:123:secret:x",
          Name: body.SecretId,
          SecretString: "sm-value",
        },
      };
    if (body.SecretId === "denied")
      return { status: 400, body: { __type: "AccessDeniedException", message: "not allowed" } };
    return { status: 400, body: { __type: "ResourceNotFoundException", message: "not found" } };
  }
  if (target === "AmazonSSM.GetParameter") {
    if (body.Name === "/postern/key" && body.WithDecryption === true)
      return {
        body: { Parameter: { Name: body.Name, Type: "SecureString", Value: "ssm-value", Version: 1 } },
      };
    return { status: 400, body: { __type: "ParameterNotFound", message: "" } };
  }
  return { status: 400, body: { __type: "UnknownOperationException" } };
}

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(now: () => number = Date.now) {
  server = await startRecordingServer(awsJsonServer);
  const common = {
    endpoint: server.url,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "fake" },
    maxAttempts: 1,
  };
  const source = awsSecretSource({
    secretsManager: new SecretsManagerClient(common),
    ssm: new SSMClient(common),
    env: { X_API_KEY: "env-value" },
    now,
  });
  return { source, server };
}

describe("awsSecretSource", () => {
  it("reads Secrets Manager by name and by ARN, and SSM with decryption", async () => {
    const { source, server } = await setup();
    expect(await source.get({ secret: "secretsmanager:postern/anthropic" })).toBe("sm-value");
    expect(await source.get({ secret: "arn:aws:secretsmanager:us-east-1:123:secret:k-AbCdEf" })).toBe(
      "sm-value",
    );
    expect(await source.get({ secret: "ssm:/postern/key" })).toBe("ssm-value");
    expect(server.requests.map((r) => r.headers["x-amz-target"])).toEqual([
      "secretsmanager.GetSecretValue",
      "secretsmanager.GetSecretValue",
      "AmazonSSM.GetParameter",
    ]);
    expect(JSON.parse(server.requests[2]?.body ?? "")).toEqual({
      Name: "/postern/key",
      WithDecryption: true,
    });
  });

  it("resolves not-found to undefined and rejects other AWS errors", async () => {
    const { source } = await setup();
    expect(await source.get({ secret: "secretsmanager:missing" })).toBeUndefined();
    expect(await source.get({ secret: "ssm:/missing" })).toBeUndefined();
    await expect(source.get({ secret: "secretsmanager:denied" })).rejects.toMatchObject({
      name: "AccessDeniedException",
    });
  });

  it("prefers the secret over the env var, and reads env refs locally", async () => {
    const { source, server } = await setup();
    expect(await source.get({ env: "X_API_KEY" })).toBe("env-value");
    expect(server.requests).toHaveLength(0);
    expect(await source.get({ env: "X_API_KEY", secret: "ssm:/postern/key" })).toBe("ssm-value");
  });

  it("caches values for the TTL and does not cache failures", async () => {
    let t = 0;
    const { source, server } = await setup(() => t);
    await source.get({ secret: "ssm:/postern/key" });
    await source.get({ secret: "ssm:/postern/key" });
    expect(server.requests).toHaveLength(1);
    t = 5 * 60_000 + 1;
    await source.get({ secret: "ssm:/postern/key" });
    expect(server.requests).toHaveLength(2);
    await source.get({ secret: "secretsmanager:denied" }).catch(() => undefined);
    await source.get({ secret: "secretsmanager:denied" }).catch(() => undefined);
    expect(server.requests).toHaveLength(4);
  });
});
