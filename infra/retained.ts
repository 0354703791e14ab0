/**
 * What a Postern stack leaves behind, read from its synthesized template: every resource whose DeletionPolicy keeps
 * it. `Retain` keeps a resource when the stack is deleted and also when the stack operation that created it rolls
 * back, so a failed first create leaves all of them (with new names, beside the ones a retry creates); only
 * `RetainExceptOnCreate` resources are deleted by that rollback (AWS CDK, CfnDeletionPolicy:
 * https://docs.aws.amazon.com/cdk/api/v2/python/aws_cdk/CfnDeletionPolicy.html). docs/deploy.md's teardown table is
 * rendered from this (`npm run docs:teardown`), and test/infra/teardown.test.ts fails when they drift.
 */

export interface TemplateLike {
  readonly Resources: Readonly<Record<string, { readonly Type: string; readonly DeletionPolicy?: string }>>;
}

export interface RetainedResource {
  readonly logicalId: string;
  readonly type: string;
  /** Kept even when the create that made it rolls back (`Retain`, `Snapshot`'s retained cases aside). */
  readonly keptOnFailedCreate: boolean;
}

const KEEPS = new Set(["Retain", "RetainExceptOnCreate"]);

export function retainedResources(t: TemplateLike): RetainedResource[] {
  return Object.entries(t.Resources)
    .filter(([, r]) => r.DeletionPolicy !== undefined && KEEPS.has(r.DeletionPolicy))
    .map(([logicalId, r]) => ({
      logicalId,
      type: r.Type,
      keptOnFailedCreate: r.DeletionPolicy === "Retain",
    }));
}

/** How to remove each kept type by hand, in the order to do it (docs/deploy.md §14). */
export const REMOVE: Readonly<Record<string, { readonly what: string; readonly how: string }>> = {
  "AWS::DynamoDB::Table": {
    what: "DynamoDB tables (deletion protection on)",
    how: "`aws dynamodb update-table --table-name <t> --no-deletion-protection-enabled`, then `aws dynamodb delete-table --table-name <t>`",
  },
  "AWS::S3::Bucket": {
    what: "S3 buckets (mail, access logs; versioned)",
    how: "empty every version (`aws s3 rb --force` leaves old versions), then `aws s3api delete-bucket --bucket <b>`",
  },
  "AWS::KMS::Key": {
    what: "KMS customer managed keys ($1 a month each)",
    how: "`aws kms schedule-key-deletion --key-id <id> --pending-window-in-days 7`",
  },
  "AWS::Logs::LogGroup": {
    what: "CloudWatch log groups",
    how: "`aws logs delete-log-group --log-group-name <g>`",
  },
  "AWS::Cognito::UserPool": {
    what: "Cognito user pool (the console; deletion protection on)",
    how: "`aws cognito-idp update-user-pool --user-pool-id <id> --deletion-protection INACTIVE`, then `aws cognito-idp delete-user-pool --user-pool-id <id>`",
  },
};

export const TEARDOWN_BEGIN = "<!-- teardown table (generated: npm run docs:teardown) -->";
export const TEARDOWN_END = "<!-- /teardown table -->";

/** The table of kept resources per deployment shape, each count from that shape's template. */
export function teardownTable(
  shapes: readonly { readonly name: string; readonly template: TemplateLike }[],
): string {
  const counts = shapes.map((s) => {
    const c = new Map<string, number>();
    for (const r of retainedResources(s.template)) c.set(r.type, (c.get(r.type) ?? 0) + 1);
    return c;
  });
  const types = [...new Set(counts.flatMap((c) => [...c.keys()]))].sort(
    (a, b) => Object.keys(REMOVE).indexOf(a) - Object.keys(REMOVE).indexOf(b),
  );
  const rows = types.map((type) => [
    REMOVE[type]?.what ?? type,
    ...counts.map((c) => String(c.get(type) ?? 0)),
    REMOVE[type]?.how ?? "see the service's documentation",
  ]);
  const head = ["kept (DeletionPolicy Retain)", ...shapes.map((s) => s.name), "remove with"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = (i: number) => i > 0 && i <= shapes.length;
  const cell = (s: string, i: number) => (numeric(i) ? s.padStart(widths[i] ?? 0) : s.padEnd(widths[i] ?? 0));
  const line = (r: readonly string[]) => `| ${r.map(cell).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (numeric(i) ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`;
  return [TEARDOWN_BEGIN, "", line(head), rule, ...rows.map(line), "", TEARDOWN_END].join("\n");
}
