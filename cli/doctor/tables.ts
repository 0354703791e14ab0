import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { TABLE_KEYS } from "../../shared/config/index.ts";
import { callFailed, isError } from "./errors.ts";
import type { DoctorContext, DoctorPorts } from "./ports.ts";
import { type DoctorCheck, fail, notDeployed, ok, warn } from "./report.ts";

/** Every table the resources file names exists here and is ACTIVE. */
export async function checkTables(ctx: DoctorContext, ports: DoctorPorts): Promise<DoctorCheck[]> {
  if (!ctx.resources) return [notDeployed("tables")];
  const out: DoctorCheck[] = [];
  for (const key of TABLE_KEYS) {
    const check = `table ${key}`;
    const name = ctx.resources.tables[key];
    try {
      const t = await ports.dynamo.send(new DescribeTableCommand({ TableName: name }));
      const status = t.Table?.TableStatus ?? "unknown";
      out.push(
        status === "ACTIVE"
          ? ok(check, `${name} ACTIVE`)
          : warn(check, `${name} ${status}`, "wait until it is ACTIVE, then run the doctor again"),
      );
    } catch (err) {
      out.push(
        isError(err, "ResourceNotFoundException")
          ? fail(
              check,
              `no table ${name} in ${ctx.region}`,
              "check AWS_REGION and that the resources file is this stack's PosternResources output",
            )
          : callFailed(check, "dynamodb:DescribeTable", err),
      );
    }
  }
  return out;
}
