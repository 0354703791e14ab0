import { Arn, ArnFormat, Stack, Token } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import {
  ConfigurationSet,
  EmailIdentity,
  Identity,
  MailFromBehaviorOnMxFailure,
  SuppressionReasons,
} from "aws-cdk-lib/aws-ses";
import { Construct } from "constructs";
import { PosternError } from "../../shared/errors.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";

export interface SendingIdentitiesProps {
  readonly domains: readonly string[];
  /** Name of the configuration set (the outbound function names it on every send). @default generated */
  readonly configurationSetName?: string;
  /** Subdomain label of the custom MAIL FROM domain (SPF alignment for bounces). @default "bounce" */
  readonly mailFromLabel?: string;
}

/** How cdk-nag prints a value in a finding's id: a pseudo parameter as `<AWS::...>`, a literal as itself. */
const nagText = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);

/** One DNS record the operator must add, as the stack outputs it. */
export interface DnsRecord {
  readonly name: string;
  readonly type: "MX" | "CNAME" | "TXT";
  readonly value: string;
}

/**
 * SES sending: a domain identity per registered domain (Easy DKIM, 2048-bit; a custom MAIL FROM subdomain so SPF
 * aligns too) and a configuration set with reputation metrics and the account suppression list. `grantSend` is
 * the only way to get ses:SendEmail, scoped to these identities and this configuration set.
 */
export class SendingIdentities extends Construct {
  readonly identities: ReadonlyMap<string, EmailIdentity>;
  readonly configurationSet: ConfigurationSet;
  readonly mailFromLabel: string;

  constructor(scope: Construct, id: string, props: SendingIdentitiesProps) {
    super(scope, id);
    this.mailFromLabel = props.mailFromLabel ?? "bounce";
    this.configurationSet = new ConfigurationSet(this, "ConfigurationSet", {
      ...(props.configurationSetName ? { configurationSetName: props.configurationSetName } : {}),
      reputationMetrics: true,
      sendingEnabled: true,
      suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
    });
    const identities = new Map<string, EmailIdentity>();
    for (const domain of props.domains) {
      identities.set(
        domain,
        new EmailIdentity(this, `Identity-${domain}`, {
          identity: Identity.domain(domain),
          // The default set applies even when a send names none, so metrics and suppression always apply.
          configurationSet: this.configurationSet,
          mailFromDomain: `${this.mailFromLabel}.${domain}`,
          mailFromBehaviorOnMxFailure: MailFromBehaviorOnMxFailure.USE_DEFAULT_VALUE,
        }),
      );
    }
    this.identities = identities;
  }

  /** The DNS records for one domain: inbound MX, the three Easy DKIM CNAMEs, MAIL FROM MX + SPF, a DMARC start. */
  dnsRecords(domain: string): DnsRecord[] {
    const identity = this.identities.get(domain);
    if (!identity) throw new PosternError("misconfigured", `no identity for ${domain}`);
    const region = Stack.of(this).region;
    const mailFrom = `${this.mailFromLabel}.${domain}`;
    return [
      { name: domain, type: "MX", value: `10 inbound-smtp.${region}.amazonaws.com` },
      ...identity.dkimRecords.map((r) => ({ name: r.name, type: "CNAME" as const, value: r.value })),
      { name: mailFrom, type: "MX", value: `10 feedback-smtp.${region}.amazonses.com` },
      { name: mailFrom, type: "TXT", value: '"v=spf1 include:amazonses.com ~all"' },
      { name: `_dmarc.${domain}`, type: "TXT", value: '"v=DMARC1; p=quarantine"' },
    ];
  }

  /**
   * ses:SendEmail and ses:SendRawEmail (SESv2 authorises raw content as the latter), only with a From address at one
   * of our domains (`ses:FromAddress`): the forced From of G9, held by IAM as well as by code. The identity
   * resource is every identity in the account, because in the SES sandbox IAM also checks each recipient's
   * verified identity; the From condition is what keeps a send to our own domains.
   */
  grantSend(grantee: IGrantable): void {
    const stack = Stack.of(this);
    const arn = (resource: string, resourceName: string) =>
      Arn.format({ service: "ses", resource, resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }, stack);
    const fromOurDomains = {
      StringLike: { "ses:FromAddress": [...this.identities.keys()].map((domain) => `*@${domain}`) },
    };
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...ACTIONS.mailSend],
        resources: [
          arn("identity", "*"),
          arn("configuration-set", this.configurationSet.configurationSetName),
        ],
        conditions: fromOurDomains,
      }),
    );
    if (Construct.isConstruct(grantee.grantPrincipal))
      acknowledgeNag(
        grantee.grantPrincipal,
        `AwsSolutions-IAM5[Resource::arn:${nagText(stack.partition, "AWS::Partition")}:ses:${nagText(stack.region, "AWS::Region")}:${nagText(stack.account, "AWS::AccountId")}:identity/*]`,
        "In the SES sandbox IAM also checks each recipient's verified identity; the ses:FromAddress condition limits every send to From addresses at the deployment's own domains.",
      );
  }
}
