import { join } from "node:path";
import { CfnOutput, Duration, RemovalPolicy, Stack, Token } from "aws-cdk-lib";
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  OAuthScope,
  StandardThreatProtectionMode,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
  UserPoolGroup,
} from "aws-cdk-lib/aws-cognito";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, type FunctionUrl, FunctionUrlAuthType, Runtime } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { StringParameter } from "aws-cdk-lib/aws-ssm";
import { Construct } from "constructs";
import { CONSOLE_ENV } from "../../console/lambda-env.ts";
import type { TableKey } from "../../shared/config/index.ts";
import { CONFIG_ENV, TABLES } from "../../shared/config/index.ts";
import { PosternError } from "../../shared/errors.ts";
import { WEBHOOK_SECRET_PREFIX } from "../../shared/ports/index.ts";
import { cdkBundling, type ShippedFiles, shippedConfigPath } from "../bundling.ts";
import { requireFunctionUrlRegion } from "../function-urls.ts";
import { ACTIONS } from "../iam/actions.ts";
import { acknowledgeNag } from "../nag.ts";
import type { MailStore } from "./mail-store.ts";
import { grantMcpSecretRead } from "./mcp-secrets.ts";
import { ADMIN_TABLES, type StateTables } from "./state-tables.ts";
import type { WorkQueue } from "./work-queue.ts";

export interface PosternConsoleProps {
  readonly tables: StateTables;
  readonly store: MailStore;
  /** Apply/Cancel put a confirm message here: the path a mailed confirmation takes (G14). */
  readonly agentStepQueue: WorkQueue;
  /** A webhook endpoint's test event goes here, as `postern webhooks test` sends it (docs/events.md). */
  readonly eventsQueue: WorkQueue;
  readonly projectRoot: string;
  readonly files: ShippedFiles;
  /** The pipeline's environment (table names, bucket, queue URLs): the console reads the same resources. */
  readonly environment: Record<string, string>;
  /** Cognito sign-in domain prefix. @default `postern-<account id>` */
  readonly domainPrefix?: string;
  /** Cognito threat protection (Plus feature plan, billed per active user). @default false */
  readonly threatProtection?: boolean;
  /** ID token validity: how long a sign-in lasts. @default 60 minutes */
  readonly sessionMinutes?: number;
  /** @default RemovalPolicy.RETAIN (the user pool holds the operators' accounts and MFA secrets) */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Executions reserved for the console function, and so its ceiling (Lambda: "Configuring reserved concurrency"):
   * anonymous requests to the public URL are throttled (429) past it instead of taking the concurrency verify and
   * outbound need. 0 reserves nothing. Lambda refuses a reservation that leaves the account fewer than 100
   * unreserved executions. @default 5
   */
  readonly reservedConcurrency?: number;
}

/** Tables the console reads, and how: one partition or one index per page view, never a scan of runtime state. */
const READS: readonly { table: TableKey; actions: readonly string[] }[] = [
  { table: "runs", actions: [...ACTIONS.tableGet, ...ACTIONS.tableQuery] },
  { table: "runEvents", actions: ACTIONS.tableQuery },
  { table: "threads", actions: [...ACTIONS.tableGet, ...ACTIONS.tableQuery] },
  { table: "messages", actions: [...ACTIONS.tableGet, ...ACTIONS.tableQuery] },
  { table: "inbound", actions: ACTIONS.tableQuery },
  { table: "state", actions: [...ACTIONS.tableGet, ...ACTIONS.tableQuery] },
];

/**
 * The operator console in AWS (opt-in: `console.enabled` in the config). An invite-only Cognito user pool (no self
 * sign-up, MFA required, TOTP only), groups `viewers` (read) and `admins` (write, attachments), Cognito's hosted
 * sign-in with a public PKCE client, and the console on Lambda behind an HTTPS function URL. The function checks
 * the ID token on every request itself (the URL's own auth type is NONE: IAM auth would need SigV4 from browsers).
 * Its role reads what the console shows and writes only the admin tables, the audit log, a plan-decision marker,
 * and a confirm message on the agent-step queue.
 */
export class PosternConsole extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly domain: UserPoolDomain;
  readonly groups: { readonly viewers: UserPoolGroup; readonly admins: UserPoolGroup };
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly url: FunctionUrl;
  readonly clientIdParameter: StringParameter;
  readonly originParameter: StringParameter;

  constructor(scope: Construct, id: string, props: PosternConsoleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // The console is served by a function URL: refused where Lambda has none, before any resource exists.
    requireFunctionUrlRegion(stack);
    const reserved = props.reservedConcurrency ?? 5;
    if (!Number.isInteger(reserved) || reserved < 0 || reserved > 1000)
      throw new PosternError(
        "misconfigured",
        `${id}: reservedConcurrency must be an integer 0-1000 (0: none), got ${reserved}`,
      );
    const minutes = props.sessionMinutes ?? 60;
    if (!Number.isInteger(minutes) || minutes < 5 || minutes > 1440)
      throw new PosternError(
        "misconfigured",
        `${id}: sessionMinutes must be an integer 5-1440 (Cognito's ID token validity), got ${minutes}`,
      );

    this.userPool = new UserPool(this, "Users", {
      // Invite-only: an admin creates each operator (docs/console.md); nobody signs themselves up.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: false } },
      mfa: Mfa.REQUIRED,
      // TOTP only: SMS codes can be intercepted (SIM swap) and need an SNS role.
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      userInvitation: {
        emailSubject: "Your Postern console account",
        emailBody:
          "An administrator invited you to the Postern console. User name: {username} Temporary password: {####} " +
          "You will be asked for a new password and to set up an authenticator app.",
      },
      featurePlan: props.threatProtection ? FeaturePlan.PLUS : FeaturePlan.ESSENTIALS,
      ...(props.threatProtection
        ? { standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION }
        : {}),
      deletionProtection: true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    if (!props.threatProtection) {
      const why =
        "Threat protection needs Cognito's Plus plan, billed per active user; it is one config flag (console.threatProtection). The pool is invite-only with MFA required, which it exists to back up.";
      acknowledgeNag(this.userPool, "AwsSolutions-COG3", why);
      acknowledgeNag(this.userPool, "AwsSolutions-COG8", why);
    }
    this.groups = {
      viewers: new UserPoolGroup(this, "Viewers", {
        userPool: this.userPool,
        groupName: "viewers",
        description:
          "Read the console: agents, threads, runs, refused mail, plans (and decide plans they approve)",
      }),
      admins: new UserPoolGroup(this, "Admins", {
        userPool: this.userPool,
        groupName: "admins",
        description: "Everything viewers do, plus change the admin tables and download attachments",
      }),
    };
    this.domain = this.userPool.addDomain("SignIn", {
      cognitoDomain: { domainPrefix: props.domainPrefix ?? `postern-${stack.account}` },
    });

    const logGroup = new LogGroup(this, "Logs", {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.role = new Role(this, "Role", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [logGroup.logGroupArn],
      }),
    );
    // The app client names the function URL (callback), so the function cannot name the client: it reads the id
    // from this parameter at cold start, by a name fixed at synth.
    const parameterName = `/${stack.stackName}/console/client-id`;
    // Likewise the function's own URL, its origin: the console answers only there (421 otherwise) and takes no
    // origin from a request. Lambda delivers a function URL request with that URL's host, so this only pins what
    // AWS already routes by; it keeps the origin configuration, as it is locally.
    const originParameterName = `/${stack.stackName}/console/origin`;
    this.fn = new NodejsFunction(this, "Function", {
      entry: join(props.projectRoot, "console", "lambda.ts"),
      handler: "handler",
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      timeout: Duration.seconds(20),
      memorySize: 512,
      role: this.role,
      logGroup,
      ...(reserved > 0 ? { reservedConcurrentExecutions: reserved } : {}),
      environment: {
        ...props.environment,
        [CONFIG_ENV.file]: shippedConfigPath(props.files),
        [CONSOLE_ENV.userPoolId]: this.userPool.userPoolId,
        [CONSOLE_ENV.clientIdParameter]: parameterName,
        [CONSOLE_ENV.originParameter]: originParameterName,
        [CONSOLE_ENV.authDomain]: this.domain.baseUrl(),
      },
      bundling: cdkBundling(props.files),
    });
    this.url = this.fn.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });

    this.client = this.userPool.addClient("Console", {
      // A public client with PKCE: no secret to keep in the function.
      generateSecret: false,
      authFlows: {},
      preventUserExistenceErrors: true,
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [`${this.url.url}auth/callback`],
        logoutUrls: [`${this.url.url}auth/signed-out`],
      },
      idTokenValidity: Duration.minutes(minutes),
      accessTokenValidity: Duration.minutes(minutes),
      refreshTokenValidity: Duration.hours(12),
    });
    this.clientIdParameter = new StringParameter(this, "ClientId", {
      parameterName,
      stringValue: this.client.userPoolClientId,
      description: "The Postern console's Cognito app client id (read by the console function at cold start)",
    });
    this.originParameter = new StringParameter(this, "Origin", {
      parameterName: originParameterName,
      stringValue: this.url.url,
      description:
        "The Postern console's function URL, its origin (read by the console function at cold start)",
    });
    this.grantLeastPrivilege(props, [parameterName, originParameterName]);

    new CfnOutput(this, "Url", {
      description: "The Postern console (sign in with an invited account)",
      value: this.url.url,
    });
    new CfnOutput(this, "UserPoolId", {
      description:
        "Invite operators: aws cognito-idp admin-create-user --user-pool-id <this> ... (docs/console.md)",
      value: this.userPool.userPoolId,
    });
  }

  private grantLeastPrivilege(props: PosternConsoleProps, parameterNames: readonly string[]): void {
    const { tables, store } = props;
    const arn = (k: TableKey) => tables.tables[k].tableArn;
    const indexArns = (k: TableKey) => {
      const spec = TABLES[k] as { indexes?: readonly { name: string }[] };
      return (spec.indexes ?? []).map((ix) => `${arn(k)}/index/${ix.name}`);
    };
    const allow = (actions: readonly string[], resources: string[], conditions?: Record<string, unknown>) =>
      this.role.addToPolicy(
        new PolicyStatement({ actions: [...actions], resources, ...(conditions ? { conditions } : {}) }),
      );

    // Admin tables: read whole (they are small), write item by item, delete (remove, cascades). The import path.
    allow(
      [
        ...ACTIONS.tableScan,
        ...ACTIONS.tableGet,
        ...ACTIONS.tableQuery,
        ...ACTIONS.tableWrite,
        "dynamodb:DeleteItem",
      ],
      ADMIN_TABLES.map(arn),
    );
    // The audit log: append, settle, list.
    allow([...ACTIONS.tableWrite, ...ACTIONS.tableQuery], [arn("audit")]);
    // Indexes are queried, never read by key: they are named only where the table is queried.
    for (const r of READS)
      allow(r.actions, [arn(r.table), ...(r.actions.includes("dynamodb:Query") ? indexArns(r.table) : [])]);
    // The only runtime writes: a plan's one console decision (`consoledecision#<runId>`), a conditional put, and
    // a signed-out session's marker (`consolesession#<hash>`, console/auth/revocations.ts).
    allow(["dynamodb:PutItem"], [arn("state")], {
      "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["consoledecision#*", "consolesession#*"] },
    });
    // Every admin write bumps the admin version (shared/store/admin-repo.ts), so the functions' cached snapshots
    // reload: one item, by its exact key.
    allow(["dynamodb:UpdateItem"], [arn("state")], {
      "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": ["admin#version"] },
    });
    // Raw inbound mail too: admins download it (never rendered: an attachment of opaque bytes, console/routes).
    store.grantRead(this.role, "mail", "files", "inbound");
    props.agentStepQueue.grantSend(this.role);
    props.eventsQueue.grantSend(this.role);
    this.grantSecrets();
    allow(
      ACTIONS.parameterRead,
      parameterNames.map((name) =>
        Stack.of(this).formatArn({ service: "ssm", resource: "parameter", resourceName: name.slice(1) }),
      ),
    );
  }

  /**
   * Secrets the console's own writes need, by prefix (the names are registered at run time, unknown at synth):
   * - webhook signing secrets, `postern/webhooks/*`: made on add and stored before the item (an endpoint is never
   *   live unsigned), read and rewritten on rotate (the old one keeps signing through the overlap), deleted on
   *   remove. The prefix holds only those secrets (shared/ports/webhooks.ts); the console never shows one twice.
   * - MCP credentials, `postern/mcp/*`, read only: reviewing a server lists its tools, which an authenticated
   *   server answers only with its token (the same grant agent-step holds; the item's schema admits no other name,
   *   so a registered server cannot make the console read a model key). Never shown, logged or stored.
   */
  private grantSecrets(): void {
    const { partition, region, account } = Stack.of(this);
    const prefix = `arn:${partition}:secretsmanager:${region}:${account}:secret:${WEBHOOK_SECRET_PREFIX}*`;
    this.role.addToPolicy(
      new PolicyStatement({ actions: [...ACTIONS.secretRead, ...ACTIONS.secretWrite], resources: [prefix] }),
    );
    const nag = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);
    acknowledgeNag(
      this.role,
      `AwsSolutions-IAM5[Resource::arn:${nag(partition, "AWS::Partition")}:secretsmanager:${nag(region, "AWS::Region")}:${nag(account, "AWS::AccountId")}:secret:${WEBHOOK_SECRET_PREFIX}*]`,
      "One signing secret per webhook endpoint, made by the console or `postern webhooks add` after deploy: the names are not known at synth; the prefix holds only webhook signing secrets.",
    );
    grantMcpSecretRead(this.role);
  }
}
