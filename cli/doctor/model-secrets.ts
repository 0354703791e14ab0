import { DescribeSecretCommand } from "@aws-sdk/client-secrets-manager";
import { DescribeParametersCommand } from "@aws-sdk/client-ssm";
import { ACTIONS } from "../../infra/iam/actions.ts";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, warn } from "./report.ts";
import { roleMay, roleOwner } from "./simulate.ts";

/** The AWS managed keys: their key policies let any principal of the account decrypt through the service. */
const AWS_MANAGED = new Set(["alias/aws/secretsmanager", "alias/aws/ssm"]);
const DECRYPT = ["kms:Decrypt"];

/** What a secret reference found in AWS: its ARN (for the role's simulation) and the key that encrypts it. */
type Found = { readonly arn: string; readonly kmsKey?: string; readonly what: string };

/**
 * Each model key the catalog names (`apiKeySecret`) exists in the stack's region and agent-step may read it. The
 * doctor never reads the value (G16: keys stay server-side, and the operator's own right to read proves nothing
 * about agent-step's): it reads the metadata (DescribeSecret, DescribeParameters), and simulates agent-step's role
 * for the read (and for kms:Decrypt when a customer managed key encrypts it, which the stack does not grant).
 */
export async function checkModelSecrets(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const role = ctx.resources?.roles?.agentStep;
  for (const m of ctx.config.models) {
    if ((m.provider !== "openai-compatible" && m.provider !== "anthropic") || !m.apiKeySecret) continue;
    const check = `model secret ${m.id}`;
    const ref = m.apiKeySecret;
    const found = ref.startsWith("ssm:")
      ? await parameter(check, ref.slice(4), ctx, ports)
      : await secret(check, ref.startsWith("arn:") ? ref : ref.slice("secretsmanager:".length), ctx, ports);
    if ("status" in found) {
      out.push(found);
      continue;
    }
    if (!role) {
      out.push(ok(check, `${found.what}; agent-step's right to read it is checked after the deploy`));
      continue;
    }
    const read = ref.startsWith("ssm:") ? ACTIONS.parameterRead : ACTIONS.secretRead;
    const may = await roleMay(
      ports,
      check,
      role,
      read,
      [found.arn],
      `deploy the current stack with this catalog: it grants agent-step ${read.join(", ")} on the secrets the catalog names`,
    );
    if (may.status !== "ok") {
      out.push(may);
      continue;
    }
    if (!found.kmsKey || AWS_MANAGED.has(found.kmsKey)) {
      out.push(ok(check, `${found.what}; agent-step may read it`));
      continue;
    }
    out.push(await customerKey(ports, check, role, found));
  }
  return out;
}

/** A customer managed key: the stack grants no kms:Decrypt, so the operator must (docs/deploy.md step 2). */
async function customerKey(
  ports: DoctorPorts,
  check: string,
  role: string,
  found: Found,
): Promise<DoctorCheck> {
  const fix = `allow kms:Decrypt on ${found.kmsKey} to agent-step's role (${role}), in its policy or the key policy`;
  if (!found.kmsKey?.includes(":key/"))
    return warn(
      check,
      `${found.what}, encrypted with ${found.kmsKey}: the doctor cannot simulate a key named by alias`,
      `${fix}; the stack does not grant it`,
    );
  const may = await roleMay(ports, check, role, DECRYPT, [found.kmsKey], fix);
  if (may.status === "ok") return ok(check, `${found.what}; agent-step may read and decrypt it`);
  // The key policy may still allow it: the simulator sees only the role's side.
  return may.status === "fail"
    ? warn(check, `${may.detail} (unless the key policy allows it: the simulator cannot see it)`, fix)
    : may;
}

async function secret(
  check: string,
  id: string,
  ctx: DoctorContext,
  ports: DoctorPorts,
): Promise<Found | DoctorCheck> {
  try {
    const s = await ports.secrets.send(new DescribeSecretCommand({ SecretId: id }));
    if (s.DeletedDate)
      return fail(
        check,
        `secret ${id} is scheduled for deletion (${s.DeletedDate.toISOString().slice(0, 10)})`,
        `\`aws secretsmanager restore-secret --secret-id ${id}\``,
      );
    const current = Object.values(s.VersionIdsToStages ?? {}).some((stages) => stages.includes("AWSCURRENT"));
    if (!current)
      return fail(
        check,
        `secret ${id} has no current value`,
        `\`aws secretsmanager put-secret-value --secret-id ${id} --secret-string "$KEY"\``,
      );
    return {
      arn: s.ARN ?? id,
      ...(s.KmsKeyId ? { kmsKey: s.KmsKeyId } : {}),
      what: `secret ${s.Name ?? id} exists`,
    };
  } catch (err) {
    if (isError(err, "ResourceNotFoundException"))
      return fail(
        check,
        `no secret ${id} in ${ctx.region}`,
        `create it in the stack's region: \`aws secretsmanager create-secret --region ${ctx.region} --name ${id} --secret-string "$KEY"\``,
      );
    return callFailed(check, "secretsmanager:DescribeSecret", err);
  }
}

async function parameter(
  check: string,
  name: string,
  ctx: DoctorContext,
  ports: DoctorPorts,
): Promise<Found | DoctorCheck> {
  let p: { ARN?: string; Type?: string; KeyId?: string } | undefined;
  try {
    const r = await ports.ssm.send(
      new DescribeParametersCommand({
        ParameterFilters: [{ Key: "Name", Option: "Equals", Values: [name] }],
      }),
    );
    p = r.Parameters?.[0];
  } catch (err) {
    return callFailed(check, "ssm:DescribeParameters", err);
  }
  const create = `\`aws ssm put-parameter --region ${ctx.region} --name ${name} --type SecureString --value "$KEY"\``;
  if (!p) return fail(check, `no parameter ${name} in ${ctx.region}`, create);
  if (p.Type !== "SecureString")
    return fail(
      check,
      `parameter ${name} is a ${p.Type ?? "plain"} parameter: the key is stored unencrypted`,
      `store it again as a SecureString: ${create.replace("put-parameter", "put-parameter --overwrite")}`,
    );
  const who = ctx.resources?.roles?.agentStep ? roleOwner(ctx.resources.roles.agentStep) : null;
  const arn =
    p.ARN ??
    (who
      ? `arn:${who.partition}:ssm:${ctx.region}:${who.account}:parameter/${name.replace(/^\//, "")}`
      : name);
  return { arn, ...(p.KeyId ? { kmsKey: p.KeyId } : {}), what: `SecureString ${name} exists` };
}
