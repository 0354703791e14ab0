import { type Duration, RemovalPolicy } from "aws-cdk-lib";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { CONFIG_ENV } from "../../shared/config/index.ts";
import { PosternError } from "../../shared/errors.ts";
import { type BundleStubs, bundledCode, type ShippedFiles, shippedConfigPath } from "../bundling.ts";
import type { WorkQueue } from "./work-queue.ts";

export interface PipelineFunctionProps {
  /** Absolute path of the handler module (exports `handler`). */
  readonly entry: string;
  /** Project root holding package-lock.json (esbuild resolves from it). */
  readonly projectRoot: string;
  /** The queue this function consumes, with partial batch responses. */
  readonly source: WorkQueue;
  readonly timeout: Duration;
  /** @default 1024 */
  readonly memorySize?: number;
  /** @default 10 */
  readonly batchSize?: number;
  /**
   * The most copies the SQS event source runs at once (its maxConcurrency, 2-1000): a runaway bound that reserves
   * nothing from the account's concurrency pool. @default none (Lambda scales the poller)
   */
  readonly maxConcurrency?: number;
  /**
   * Also reserve that many executions for this function. Lambda refuses a reservation that leaves the account
   * less than its unreserved minimum (100), so on a new account with a quota of 10 a reservation fails the
   * deploy: opt in only where the quota allows. Needs maxConcurrency; both must be equal, so the poller never
   * throttles itself into the DLQ. @default false
   */
  readonly reserveConcurrency?: boolean;
  readonly environment: Record<string, string>;
  readonly files: ShippedFiles;
  /** @default RetentionDays.THREE_MONTHS */
  readonly logRetention?: RetentionDays;
  /** Code this function's bundle leaves out (infra/bundling.ts). @default none */
  readonly stubs?: BundleStubs;
}

/**
 * A pipeline step: a function on nodejs24.x/ARM64 bundled by the local esbuild (infra/bundling.ts bundledCode,
 * what NodejsFunction would do, with esbuild's JS API so stubs can replace modules), its own role (no managed
 * policies: log writes are granted on its own log group only), a log group with retention, and the SQS trigger
 * with partial batch responses.
 */
export class PipelineFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: PipelineFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, "Logs", {
      retention: props.logRetention ?? RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.role = new Role(this, "Role", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    const { maxConcurrency } = props;
    if (
      maxConcurrency !== undefined &&
      (!Number.isInteger(maxConcurrency) || maxConcurrency < 2 || maxConcurrency > 1000)
    )
      throw new PosternError(
        "misconfigured",
        `${id}: maxConcurrency must be an integer 2-1000 (the SQS event source's range), got ${maxConcurrency}`,
      );
    if (props.reserveConcurrency && maxConcurrency === undefined)
      throw new PosternError(
        "misconfigured",
        `${id}: reserveConcurrency needs maxConcurrency (the number to reserve)`,
      );
    this.fn = new LambdaFunction(this, "Function", {
      code: bundledCode({
        entry: props.entry,
        projectRoot: props.projectRoot,
        files: props.files,
        ...(props.stubs ? { stubs: props.stubs } : {}),
      }),
      handler: "index.handler",
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize ?? 1024,
      role: this.role,
      logGroup: this.logGroup,
      ...(props.reserveConcurrency ? { reservedConcurrentExecutions: maxConcurrency } : {}),
      environment: {
        ...props.environment,
        [CONFIG_ENV.file]: shippedConfigPath(props.files),
      },
    });
    this.fn.addEventSource(
      new SqsEventSource(props.source.queue, {
        batchSize: props.batchSize ?? 10,
        reportBatchItemFailures: true,
        ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
      }),
    );
  }
}
