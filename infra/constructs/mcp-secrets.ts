import { Aws, Stack, Token } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { PosternError } from "../../shared/errors.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";

/** The Secrets Manager prefix MCP server credentials live under (shared/mcp/server-item.ts admits no other). */
export const MCP_SECRET_PREFIX = "postern/mcp/";

/**
 * Read access to MCP servers' credentials (G16). Servers are registered at run time (`postern mcp add`), so their
 * secrets cannot be named at synth: the grant is the prefix, and the admin item's schema refuses any secret
 * reference outside it, so a registered server cannot name the model keys or another application's secrets.
 */
export function grantMcpSecretRead(grantee: IGrantable): void {
  const principal = grantee.grantPrincipal;
  if (!Construct.isConstruct(principal))
    throw new PosternError("invalid-argument", "grantMcpSecretRead: the grantee must be a construct");
  // The partition as a pseudo parameter (aws, aws-cn, aws-us-gov), as the model grants name it.
  const partition = Aws.PARTITION;
  const { region, account } = Stack.of(principal);
  const arn = (p: string, r: string, a: string) =>
    `arn:${p}:secretsmanager:${r}:${a}:secret:${MCP_SECRET_PREFIX}*`;
  principal.addToPrincipalPolicy(
    new PolicyStatement({ actions: [...ACTIONS.secretRead], resources: [arn(partition, region, account)] }),
  );
  // cdk-nag names the resource as synthesised: a concrete env's values, or the pseudo parameters.
  const shown = (v: string, pseudo: string) => (Token.isUnresolved(v) ? `<AWS::${pseudo}>` : v);
  acknowledgeNag(
    principal,
    `AwsSolutions-IAM5[Resource::${arn(shown(partition, "Partition"), shown(region, "Region"), shown(account, "AccountId"))}]`,
    "MCP servers are registered at run time, so their credentials are granted by the postern/mcp/ prefix; the admin schema admits no secret outside it.",
  );
}
