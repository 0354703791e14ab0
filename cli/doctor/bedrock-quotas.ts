import { GetFoundationModelCommand } from "@aws-sdk/client-bedrock";
import { classifyModelId } from "./bedrock-models.ts";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, ok, skipped, warn } from "./report.ts";
import type { QuotasPort } from "./unbundled-ports.ts";

type Quota = NonNullable<Awaited<ReturnType<QuotasPort["listServiceQuotas"]>>["Quotas"]>[number];

const INCREASE =
  "Service Quotas → Amazon Bedrock → the quota → Request increase at account level (Bedrock user guide, " +
  '"Request an increase for Amazon Bedrock quotas": ask for the Cross-Region InvokeModel tokens per minute quota and ' +
  "support offers the others with it)";

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Which of Bedrock's per-model quotas govern how the catalog calls the model (Bedrock user guide, "Quotas for the
 * bedrock-runtime endpoint"): `On-demand InvokeModel ... for ${model}` for a model id, `Cross-Region InvokeModel ...`
 * for a geographic profile, `Global cross-Region ...` for a `global.` one; per minute, tokens and requests. Names end
 * with the model's provider and name as Bedrock lists them, plus a version (" V1").
 */
function quotasFor(
  quotas: readonly Quota[],
  model: string,
  kind: "on-demand" | "cross-region" | "global",
): Quota[] {
  const named = new RegExp(`for ${escapeRegExp(model)}( V\\d+(\\.\\d+)?)?$`, "i");
  return quotas.filter((q) => {
    const name = q.QuotaName ?? "";
    if (!named.test(name) || !/(tokens|requests) per minute/i.test(name)) return false;
    const global = /^global cross-region/i.test(name);
    const cross = /^cross-region/i.test(name);
    if (kind === "global") return global;
    if (kind === "cross-region") return cross;
    return /^on-demand/i.test(name);
  });
}

/**
 * Each Bedrock model's per-minute quotas as applied to this account (Service Quotas ListServiceQuotas, service code
 * `bedrock`). New accounts may get quotas below the published defaults, some at 0 (Bedrock user guide, "Quotas for
 * Amazon Bedrock"): a 0 throttles every call, and fewer requests a minute than agent-step's concurrency throttles
 * runs that overlap.
 */
export async function checkBedrockQuotas(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const lists = new Map<string, Quota[]>();
  for (const m of ctx.config.models) {
    if (m.provider !== "bedrock") continue;
    const check = `model quota ${m.id}`;
    const region = m.region ?? ctx.region;
    const target = classifyModelId(m.modelId);
    if (target.kind === "other" || target.id.startsWith("arn:")) {
      out.push(
        skipped(
          check,
          `${m.modelId}: the doctor reads quotas for model and profile ids only`,
          "see Service Quotas → Amazon Bedrock",
        ),
      );
      continue;
    }
    const prefix = target.kind === "profile" ? target.id.split(".")[0] : undefined;
    const base = prefix ? target.id.slice(prefix.length + 1) : target.id;
    const kind = !prefix ? "on-demand" : prefix === "global" ? "global" : "cross-region";
    let name: string;
    try {
      const d = (await ports.bedrock(region).send(new GetFoundationModelCommand({ modelIdentifier: base })))
        .modelDetails;
      name = `${d?.providerName ?? ""} ${d?.modelName ?? base}`.trim();
    } catch (err) {
      // A model Bedrock does not know is `model <id>`'s finding; anything else is this check's.
      out.push(
        isError(err, "ResourceNotFoundException", "ValidationException")
          ? skipped(
              check,
              `Bedrock knows no model ${base} in ${region}`,
              `fix \`model ${m.id}\` first, then run the doctor again`,
            )
          : callFailed(check, "bedrock:GetFoundationModel", err),
      );
      continue;
    }
    const byHand = `\`aws service-quotas list-service-quotas --service-code bedrock --region ${region} --query "Quotas[?contains(QuotaName, '${name}')].[QuotaName,Value]"\``;
    if (!ports.quotas) {
      out.push(
        skipped(
          check,
          "this install has no Service Quotas client (@aws-sdk/client-service-quotas)",
          `${byHand}: no 0, and requests per minute at least agent-step's concurrency (${ctx.agentStep.concurrency})`,
        ),
      );
      continue;
    }
    let all = lists.get(region);
    if (!all) {
      try {
        all = await listAll(ports.quotas(region));
      } catch (err) {
        out.push(callFailed(check, "servicequotas:ListServiceQuotas", err));
        continue;
      }
      lists.set(region, all);
    }
    out.push(verdict(check, name, kind, quotasFor(all, name, kind), ctx.agentStep.concurrency, byHand));
  }
  return out;
}

async function listAll(client: QuotasPort): Promise<Quota[]> {
  const all: Quota[] = [];
  let NextToken: string | undefined;
  for (let page = 0; page < 50; page++) {
    const r = await client.listServiceQuotas({
      ServiceCode: "bedrock",
      MaxResults: 100,
      ...(NextToken ? { NextToken } : {}),
    });
    all.push(...(r.Quotas ?? []));
    NextToken = r.NextToken;
    if (!NextToken) break;
  }
  return all;
}

function verdict(
  check: string,
  name: string,
  kind: string,
  quotas: readonly Quota[],
  concurrency: number,
  byHand: string,
): DoctorCheck {
  if (quotas.length === 0)
    return warn(
      check,
      `Service Quotas lists no ${kind} per-minute quota for ${name} here`,
      `look by hand: ${byHand}`,
    );
  const text = quotas.map((q) => `${q.QuotaName}: ${q.Value ?? "?"}`).join("; ");
  const zero = quotas.filter((q) => q.Value === 0);
  if (zero.length > 0)
    return fail(
      check,
      `${zero.map((q) => q.QuotaName).join("; ")} is 0: Bedrock throttles every call`,
      INCREASE,
    );
  const rpm = quotas.find((q) => /requests per minute/i.test(q.QuotaName ?? ""));
  if (rpm?.Value !== undefined && rpm.Value < concurrency)
    return warn(
      check,
      `${rpm.QuotaName} is ${rpm.Value}, under agent-step's concurrency (${concurrency}): runs that overlap are throttled and retried`,
      `${INCREASE}; or deploy with -c agentStepConcurrency=${Math.max(2, Math.floor(rpm.Value))}`,
    );
  return ok(check, text);
}
