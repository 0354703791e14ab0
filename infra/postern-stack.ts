import { join } from "node:path";
import { Annotations, CfnOutput, Duration, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { SES_SEND_TIMEOUT_MS } from "../shared/aws/index.ts";
import { ENV } from "../shared/config/index.ts";
import { FUNCTION_STUBS, type ShippedFiles } from "./bundling.ts";
import { PosternConsole } from "./constructs/console.ts";
import { MailIntake } from "./constructs/mail-intake.ts";
import { MailStore } from "./constructs/mail-store.ts";
import { grantMcpSecretRead } from "./constructs/mcp-secrets.ts";
import { ModelAccess } from "./constructs/model-access.ts";
import { Operations } from "./constructs/operations.ts";
import { PipelineFunction, type PipelineFunctionProps } from "./constructs/pipeline-function.ts";
import { ResponsibilityTicks } from "./constructs/responsibility-ticks.ts";
import { DeliveryEvents } from "./constructs/send-outcomes.ts";
import { SendingIdentities } from "./constructs/sending-identities.ts";
import { ADMIN_TABLES, StateTables } from "./constructs/state-tables.ts";
import { Webhooks } from "./constructs/webhooks.ts";
import { WorkQueue } from "./constructs/work-queue.ts";
import { ACTIONS } from "./iam/actions.ts";
import type { SynthConfig } from "./synth-config.ts";

export interface PosternStackProps extends StackProps {
  readonly config: SynthConfig;
  /** Repository root (entries, package-lock.json). */
  readonly projectRoot: string;
  /**
   * Upper bound on concurrent agent-step invocations (the SQS event source's maxConcurrency): a runaway loop
   * cannot fan out past it. @default 10
   */
  readonly agentStepConcurrency?: number;
  /**
   * Also reserve that concurrency for agent-step. Off by default: Lambda refuses a reservation that leaves the
   * account under its unreserved minimum, which fails the deploy on a new account (quota 10). @default false
   */
  readonly reserveAgentStepConcurrency?: boolean;
  /** @default 5 */
  readonly maxReceiveCount?: number;
  /**
   * Executions reserved for the console function, which is also its ceiling: its function URL is public, so a flood
   * of anonymous requests is throttled there instead of taking the account's concurrency from the pipeline. 0
   * reserves nothing (no bound). Lambda refuses a reservation that leaves the account fewer than 100 unreserved
   * executions, so a console-enabled deploy needs a quota of at least 100 + this. @default 5
   */
  readonly consoleReservedConcurrency?: number;
}

type StepOptions = Omit<PipelineFunctionProps, "entry" | "projectRoot" | "environment" | "files" | "stubs">;

/** Each function's memory (MB); `npm run bench:cost` prices their GB-seconds from these. */
export const MEMORY_MB = { verify: 1024, agentStep: 1024, outbound: 512 } as const;
/** The webhooks worker's memory (bench:cost prices its GB-seconds from this). */
export const WEBHOOKS_MEMORY_MB = 256;

/** Messages per outbound invocation; its timeout leaves room for every one of them to wait out SES. */
const OUTBOUND_BATCH = 5;

const TIMEOUTS = {
  verify: Duration.seconds(60),
  // One model round (Bedrock adapter: 120 s per attempt, bounded retries) plus the round's tool calls.
  agentStep: Duration.minutes(10),
  // Each send may wait SES_SEND_TIMEOUT_MS before it is marked unknown: a batch of slow sends must still end in
  // our own bookkeeping, never in a Lambda timeout mid-send (which would leave outcomes unrecorded). 30 s for the
  // store reads and writes around them.
  outbound: Duration.seconds(Math.ceil((OUTBOUND_BATCH * SES_SEND_TIMEOUT_MS) / 1000) + 30),
} as const;

/** Postern in one stack: mail intake → verify → agent-step → outbound, the tables, sending, schedules, alarms. */
export class PosternStack extends Stack {
  readonly store: MailStore;
  readonly tables: StateTables;
  readonly queues: {
    readonly verify: WorkQueue;
    readonly agentStep: WorkQueue;
    readonly outbound: WorkQueue;
  };
  readonly functions: {
    readonly verify: PipelineFunction;
    readonly agentStep: PipelineFunction;
    readonly outbound: PipelineFunction;
  };
  readonly intake: MailIntake;
  readonly sending: SendingIdentities;
  /** The operator console, when the config enables it (`console.enabled`). */
  readonly console?: PosternConsole;
  /** Alarms, their topic and the dashboard. */
  readonly operations: Operations;
  /** SES's bounces, complaints, rejects and delivery delays, recorded per agent. */
  readonly deliveryEvents: DeliveryEvents;
  /** Signed events to the operator's endpoints: the events queue, its DLQ and the delivery worker. */
  readonly webhooks: Webhooks;

  constructor(scope: Construct, id: string, props: PosternStackProps) {
    super(scope, id, props);
    const { config } = props.config.loaded;
    for (const w of props.config.warnings) Annotations.of(this).addWarningV2("postern:config", w);

    this.store = new MailStore(this, "MailStore");
    this.tables = new StateTables(this, "Tables");
    const receives = props.maxReceiveCount ?? 5;
    this.queues = {
      verify: new WorkQueue(this, "VerifyQueue", {
        consumerTimeout: TIMEOUTS.verify,
        maxReceiveCount: receives,
      }),
      agentStep: new WorkQueue(this, "AgentStepQueue", {
        consumerTimeout: TIMEOUTS.agentStep,
        maxReceiveCount: receives,
      }),
      outbound: new WorkQueue(this, "OutboundQueue", {
        consumerTimeout: TIMEOUTS.outbound,
        maxReceiveCount: receives,
      }),
    };
    this.sending = new SendingIdentities(this, "Sending", {
      domains: config.domains,
      ...(config.outbound.configurationSet ? { configurationSetName: config.outbound.configurationSet } : {}),
    });
    this.intake = new MailIntake(this, "Intake", {
      domains: config.domains,
      store: this.store,
      verifyQueue: this.queues.verify,
      ruleSet: config.receiptRuleSet,
      projectRoot: props.projectRoot,
    });

    const eventsQueue = Webhooks.eventsQueue(this, "EventsQueue");
    const files: ShippedFiles = {
      configFile: props.config.file,
      configDir: props.config.loaded.baseDir,
      scripts: props.config.scripts,
    };
    const environment = {
      ...this.tables.environment(),
      [ENV.bucket]: this.store.bucket.bucketName,
      [ENV.verifyQueue]: this.queues.verify.queue.queueUrl,
      [ENV.agentStepQueue]: this.queues.agentStep.queue.queueUrl,
      [ENV.outboundQueue]: this.queues.outbound.queue.queueUrl,
      ...Webhooks.environment(eventsQueue),
      POSTERN_LOG_LEVEL: "INFO",
      // agent-step ends a run `failed` when its step message's last delivery fails (before the DLQ takes it).
      POSTERN_MAX_RECEIVES: String(receives),
    };
    // Each function's bundle leaves out what infra/bundling.ts proves it never runs (FUNCTION_STUBS).
    const step = (id: string, dir: keyof typeof FUNCTION_STUBS, opts: StepOptions) =>
      new PipelineFunction(this, id, {
        ...opts,
        entry: join(props.projectRoot, "functions", dir, "handler.ts"),
        projectRoot: props.projectRoot,
        environment,
        files,
        stubs: FUNCTION_STUBS[dir],
      });
    this.functions = {
      verify: step("Verify", "verify", {
        source: this.queues.verify,
        timeout: TIMEOUTS.verify,
        memorySize: MEMORY_MB.verify,
        batchSize: 5,
      }),
      agentStep: step("AgentStep", "agent-step", {
        source: this.queues.agentStep,
        timeout: TIMEOUTS.agentStep,
        memorySize: MEMORY_MB.agentStep,
        // One model round per message: a batch would serialise unrelated runs behind one slow model call.
        batchSize: 1,
        maxConcurrency: props.agentStepConcurrency ?? 10,
        reserveConcurrency: props.reserveAgentStepConcurrency ?? false,
      }),
      outbound: step("Outbound", "outbound", {
        source: this.queues.outbound,
        timeout: TIMEOUTS.outbound,
        memorySize: MEMORY_MB.outbound,
        batchSize: OUTBOUND_BATCH,
      }),
    };
    this.grantLeastPrivilege(new ModelAccess(this, "Models", { models: config.models }));
    if (config.console.enabled) {
      this.console = new PosternConsole(this, "Console", {
        tables: this.tables,
        store: this.store,
        agentStepQueue: this.queues.agentStep,
        eventsQueue,
        projectRoot: props.projectRoot,
        files,
        environment,
        ...(config.console.domainPrefix ? { domainPrefix: config.console.domainPrefix } : {}),
        threatProtection: config.console.threatProtection,
        sessionMinutes: config.console.sessionMinutes,
        reservedConcurrency: props.consoleReservedConcurrency ?? 5,
      });
    }

    const ticks = new ResponsibilityTicks(this, "Responsibilities", {
      agentStepQueue: this.queues.agentStep,
    });
    this.deliveryEvents = new DeliveryEvents(this, "DeliveryEvents", {
      configurationSet: this.sending.configurationSet,
      tables: this.tables,
      maxReceiveCount: receives,
      function: {
        entry: join(props.projectRoot, "functions", "delivery-events", "handler.ts"),
        projectRoot: props.projectRoot,
        environment,
        files,
        stubs: FUNCTION_STUBS["delivery-events"],
        memorySize: 256,
        batchSize: 10,
      },
    });
    this.webhooks = new Webhooks(this, "Webhooks", {
      queue: eventsQueue,
      tables: this.tables,
      function: {
        entry: join(props.projectRoot, "functions", "webhooks", "handler.ts"),
        projectRoot: props.projectRoot,
        environment,
        files,
        stubs: FUNCTION_STUBS.webhooks,
        memorySize: WEBHOOKS_MEMORY_MB,
        batchSize: 5,
      },
    });
    // The emission points: each may put events on the queue, nothing more.
    const { verify, agentStep, outbound } = this.functions;
    for (const fn of [verify, agentStep, outbound, this.deliveryEvents.fn]) this.webhooks.grantEmit(fn.fn);
    // An event is queued only when an endpoint subscribes to it (shared/webhooks/wiring.ts webhookSinkFor): the
    // delivery-events recorder reads the endpoints table for that; the other three read every admin table already.
    this.tables.grantScan(this.deliveryEvents.fn.fn, "webhooks");
    this.operations = new Operations(this, "Operations", {
      steps: {
        verify: { fn: this.functions.verify, queue: this.queues.verify },
        agentStep: { fn: this.functions.agentStep, queue: this.queues.agentStep },
        outbound: { fn: this.functions.outbound, queue: this.queues.outbound },
        deliveryEvents: { fn: this.deliveryEvents.fn, queue: this.deliveryEvents.queue },
        webhooks: { fn: this.webhooks.fn, queue: this.webhooks.queue },
      },
    });
    this.outputs(config.domains, this.operations, ticks);
  }

  /**
   * Who may do what (DESIGN.md §1). verify: raw mail in, accepted mail out, no model, no sending. agent-step:
   * models, mailbox (never `inbound/`), re-enqueue itself, hand send requests to outbound. outbound: the only
   * function with ses:SendEmail.
   */
  private grantLeastPrivilege(models: ModelAccess): void {
    const { verify, agentStep, outbound } = this.functions;
    const { tables, store, queues } = this;

    // Table grants are what the code's calls need, table by table and action by action; the recorded calls of the
    // local pipeline hold them to that (test/infra/iam-calls.test.ts, resources as well as actions).
    const {
      tableGet: get,
      tablePut: put,
      tableUpdate: update,
      tableBatchGet: batchGet,
      tableQuery: query,
    } = ACTIONS;
    tables.grantScan(verify.fn, ...ADMIN_TABLES);
    // The claim (a redelivery reads the claim it lost to), its completion.
    tables.grant(verify.fn, [...get, ...put, ...update], ["inbound"]);
    tables.grant(verify.fn, put, ["messages", "runs"]);
    // Thread membership (get), participants and activity (update).
    tables.grant(verify.fn, [...get, ...update], ["threads"]);
    // Replay keys, the Message-ID index (one BatchGetItem for a reply's References), the plan a confirmation names.
    tables.grant(verify.fn, [...get, ...put, ...batchGet], ["state"]);
    store.grantRead(verify.fn, "inbound");
    store.grantWrite(verify.fn, "mail", "files");
    queues.agentStep.grantSend(verify.fn);
    queues.outbound.grantSend(verify.fn);

    tables.grantScan(agentStep.fn, ...ADMIN_TABLES);
    // Runs: read, create (scheduled and continued runs), round and end; the trace: append only.
    tables.grant(agentStep.fn, [...get, ...put, ...update], ["runs"]);
    tables.grant(agentStep.fn, put, ["runEvents"]);
    // The mailbox: a message by id, an agent's mail (a toolkit widened to the archive, G12), a thread's mail.
    tables.grant(agentStep.fn, [...get, ...query], ["messages"]);
    tables.grantIndexQuery(agentStep.fn, "messages", "byThread");
    // Ledger, budgets (the day's token counters in one BatchGetItem), plans, files, tool results.
    tables.grant(agentStep.fn, [...get, ...put, ...update, ...batchGet, ...query], ["state"]);
    store.grantRead(agentStep.fn, "mail", "files", "transcripts");
    store.grantWrite(agentStep.fn, "files", "transcripts");
    queues.agentStep.grantSend(agentStep.fn);
    queues.outbound.grantSend(agentStep.fn);
    models.grantInvoke(agentStep.fn);
    grantMcpSecretRead(agentStep.fn);

    // The outbound takes the agent and its outbound rules (it re-checks a request's recipients) from the admin
    // snapshot each container loads once (all admin tables) and reuses while the admin version is unchanged.
    tables.grantScan(outbound.fn, ...ADMIN_TABLES);
    // The inbound message a reply answers (get), the sent message's record (put); participants and activity.
    tables.grant(outbound.fn, [...get, ...put], ["messages"]);
    tables.grant(outbound.fn, update, ["threads"]);
    // The send state machine, the Message-ID index.
    tables.grant(outbound.fn, [...get, ...put, ...update], ["state"]);
    // G19: a send that fails is marked on its run's row (update) and written to its trace (put); no reads.
    tables.grant(outbound.fn, update, ["runs"]);
    tables.grant(outbound.fn, put, ["runEvents"]);
    store.grantRead(outbound.fn, "files");
    store.grantWrite(outbound.fn, "outbound", "mail");
    this.sending.grantSend(outbound.fn);
  }

  /** The console function and its reservation as synthesised, for `postern doctor`. */
  private consoleResources(c: PosternConsole): {
    functionName: string;
    userPoolId: string;
    reservedConcurrency?: number;
  } {
    const reserved = (c.fn.node.defaultChild as { reservedConcurrentExecutions?: number })
      .reservedConcurrentExecutions;
    return {
      functionName: c.fn.functionName,
      userPoolId: c.userPool.userPoolId,
      ...(reserved !== undefined ? { reservedConcurrency: reserved } : {}),
    };
  }

  private outputs(domains: readonly string[], ops: Operations, ticks: ResponsibilityTicks): void {
    // The reservation as synthesised (the CfnFunction's property), whatever default or context chose it.
    const reserved = (
      this.functions.agentStep.fn.node.defaultChild as { reservedConcurrentExecutions?: number }
    ).reservedConcurrentExecutions;
    domains.forEach((domain, i) => {
      this.sending.dnsRecords(domain).forEach((r, j) => {
        new CfnOutput(this, `Dns${i}x${j}`, {
          description: `DNS record for ${domain} (${r.type})`,
          value: `${r.name} ${r.type} ${r.value}`,
        });
      });
    });
    new CfnOutput(this, "PosternResources", {
      description:
        "Resource names for `postern --target aws --resources FILE` (save this value as a JSON file)",
      value: this.toJsonString({
        region: this.region,
        tables: this.tables.names(),
        bucket: this.store.bucket.bucketName,
        queues: {
          verify: this.queues.verify.queue.queueUrl,
          agentStep: this.queues.agentStep.queue.queueUrl,
          outbound: this.queues.outbound.queue.queueUrl,
          events: this.webhooks.queue.queue.queueUrl,
          eventsDeadLetter: this.webhooks.queue.deadLetterQueue.queueUrl,
        },
        // What `postern doctor` checks: alarm subscribers, the roles' rights (send, models, secrets), the
        // reservation, the topics' keys, the tick, the console's users and concurrency.
        alarmTopicArn: ops.alarmTopic.topicArn,
        roles: {
          outbound: this.functions.outbound.role.roleArn,
          agentStep: this.functions.agentStep.role.roleArn,
        },
        agentStep: {
          functionName: this.functions.agentStep.fn.functionName,
          ...(reserved !== undefined ? { reservedConcurrency: reserved } : {}),
        },
        configurationSet: this.sending.configurationSet.configurationSetName,
        notificationTopicArn: this.intake.topic.topicArn,
        schedule: {
          name: ticks.schedule.scheduleName,
          group: ticks.schedule.scheduleGroup?.scheduleGroupName ?? "default",
        },
        ...(this.console ? { console: this.consoleResources(this.console) } : {}),
      }),
    });
    new CfnOutput(this, "AlarmTopicArn", {
      description: "Subscribe an address to receive Postern alarms",
      value: ops.alarmTopic.topicArn,
    });
    new CfnOutput(this, "ReceiptRuleSet", { value: this.intake.ruleSet.receiptRuleSetName });
  }
}
