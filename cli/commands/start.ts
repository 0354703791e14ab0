import { relative } from "node:path";
import type { Command } from "commander";
import { CommandFailure } from "../errors.ts";
import type { HandlerContext, LocalStack } from "../local/stack.ts";
import { portNumber } from "../options.ts";

/** Fixed local ports (configurable), so a restarted stack keeps its addresses. */
export const START_DEFAULTS = {
  smtpPort: 2525,
  awsPort: 4566,
  dynamoPort: 4567,
  sesPort: 4568,
  consolePort: 4570,
  /** = cli/local/demo.ts DEMO_OPERATOR and console/server.ts DEFAULT_CONSOLE_EMAIL (a test holds them equal). */
  consoleEmail: "operator@postern.test",
} as const;

interface StartOptions {
  dir: string;
  config: string;
  smtpPort: number;
  awsPort: number;
  dynamodbPort: number;
  sesPort: number;
  consolePort: number;
  consoleEmail: string;
  console: boolean;
}

export function registerStartCommand(program: Command): void {
  program
    .command("start")
    .summary("run the whole pipeline locally (what `npm start` does)")
    .description(
      "Run the whole stack locally (what `npm start` does): S3/SQS/SNS and DynamoDB emulators, an SMTP intake " +
        "standing in for SES receiving, an SES endpoint that captures outbound mail, and the queue pollers. " +
        "State persists in --dir. With no postern.config.json a demo agent is set up. Ctrl-C stops it.",
    )
    .option("--dir <dir>", "state directory", ".postern")
    .option(
      "--config <file>",
      "deployment config (demo config when the file does not exist)",
      "postern.config.json",
    )
    .option("--smtp-port <port>", "SMTP intake port", portNumber, START_DEFAULTS.smtpPort)
    .option("--aws-port <port>", "S3/SQS/SNS emulator port", portNumber, START_DEFAULTS.awsPort)
    .option("--dynamodb-port <port>", "DynamoDB emulator port", portNumber, START_DEFAULTS.dynamoPort)
    .option("--ses-port <port>", "SES capture port", portNumber, START_DEFAULTS.sesPort)
    .option(
      "--console-port <port>",
      "operator console port (127.0.0.1 only)",
      portNumber,
      START_DEFAULTS.consolePort,
    )
    .option(
      "--console-email <address>",
      "the local console operator's address: the demo's approver (its confirm cards land in the outbox); make " +
        "another address an approver to apply its plans in the console",
      START_DEFAULTS.consoleEmail,
    )
    .option("--no-console", "do not serve the operator console")
    .action(async (o: StartOptions) => {
      // Loaded here, not at the top: `postern --help` and the admin commands should not pay for the emulators.
      const [{ startLocalStack }, demo, { pipelineHandlers }] = await Promise.all([
        import("../local/stack.ts"),
        import("../local/demo.ts"),
        import("../local/pipeline.ts"),
      ]);
      const handlers = (ctx: HandlerContext) => pipelineHandlers(ctx);
      const stack = await startLocalStack({
        dir: o.dir,
        configPath: o.config,
        persist: true,
        handlers,
        smtpPort: o.smtpPort,
        awsPort: o.awsPort,
        dynamoPort: o.dynamodbPort,
        sesPort: o.sesPort,
        logger: consoleLogger,
        demoOperator: o.consoleEmail,
        // Local only: a webhook receiver on this machine (http://127.0.0.1:...) may be reached (docs/events.md).
        webhookLoopback: process.env.POSTERN_WEBHOOKS_ALLOW_LOOPBACK === "1",
      }).catch((err: unknown) => {
        throw portInUse(err, o) ?? err;
      });
      // Refuse now, naming the file, rather than let the first mail's run fail in the log a minute later.
      const unready = await (await import("../local/agent-readiness.ts")).unreadyAgents({
        agents: await listAgents(stack),
        config: stack.config,
        configFile: stack.configFile,
      });
      if (unready.length > 0) {
        await stack.stop();
        throw new CommandFailure(unready.join("; and "));
      }
      const { startScheduleTimer } = await import("../local/schedule-timer.ts");
      const timer = startScheduleTimer(stack.clients.sqs, stack.resources.queues.agentStep);
      const consoleApp = o.console
        ? await (await import("../local/console.ts"))
            .startStackConsole(stack, { port: o.consolePort, email: o.consoleEmail, logger: consoleLogger })
            .catch(async (err: unknown) => {
              timer.stop();
              await stack.stop();
              throw portInUse(err, o) ?? err;
            })
        : undefined;
      console.log(describeStack(stack, demo, o.consoleEmail));
      if (consoleApp) console.log(consoleApp.banner);
      await untilSignal();
      await consoleApp?.stop();
      timer.stop();
      process.stdout.write("\nstopping...");
      await stack.stop();
      console.log(" stopped; state kept in", rel(stack.dir));
    });
}

/** Every agent the stack's admin tables hold, as the pipeline reads them. */
async function listAgents(stack: LocalStack) {
  const [{ AdminRepo }, { silentLogger }] = await Promise.all([
    import("../../shared/store/index.ts"),
    import("../../shared/logger.ts"),
  ]);
  return new AdminRepo({
    dynamo: stack.clients.dynamo,
    tables: stack.resources.tables,
    logger: silentLogger,
  }).listAgents();
}

export function describeStack(
  s: LocalStack,
  demo: {
    readonly DEMO_AGENT: string;
    readonly DEMO_SENDER: string;
    readonly DEMO_REFUNDS_AGENT: string;
  },
  consoleEmail: string = START_DEFAULTS.consoleEmail,
): string {
  const { DEMO_AGENT, DEMO_SENDER, DEMO_REFUNDS_AGENT } = demo;
  const refused = s.demoSeed?.seeded ? s.demoSeed.approverRefused : undefined;
  const ep = s.resources.endpoints ?? {};
  const lines = [
    "Postern local stack is running.",
    "",
    `  SMTP intake (SES receiving)  smtp://${s.smtp.host}:${s.smtp.port}`,
    `  S3 / SQS / SNS               ${ep.s3}`,
    `  DynamoDB                     ${ep.dynamodb}`,
    `  SES capture (sending)        ${ep.ses}  -> ${rel(s.outboxDir)}/<id>.eml`,
    `  DKIM zone file               ${rel(s.zoneFile)}`,
    `  state                        ${rel(s.dir)}  (stack.json tells the CLI where all this is)`,
    `  config                       ${s.demo ? `demo (${rel(s.config.baseDir)}/demo.config.json; no postern.config.json)` : s.config.baseDir}`,
    "",
    ...s.pollers.polled.map((q) => `  queue ${q}: polled`),
    ...s.pollers.skipped.map(
      (q) => `  queue ${q}: not polled yet (no ${q} handler registered); messages wait there`,
    ),
    "",
    "Send a first mail (in another terminal):",
    `  npx postern dev send --from ${DEMO_SENDER} --to ${s.demo ? DEMO_AGENT : `<agent>@${s.config.config.domains[0]}`} --subject "Hello" --body "Hi there"`,
    "",
    ...(s.demo
      ? [
          "Try an approval: the refund desk proposes a refund, which runs only once its approver applies it:",
          `  npx postern dev send --from ${DEMO_SENDER} --to ${DEMO_REFUNDS_AGENT} --subject "Refund" --body "Please refund order A-1001"`,
          `  its confirm card lands in ${rel(s.outboxDir)}/, addressed to the demo's approver (the console operator,`,
          `  ${s.demoSeed?.seeded ? consoleEmail : "seeded at the first start"}: npx postern approvers list); apply the plan in the console under`,
          "  Pending plans, signed in as that approver.",
          ...(refused
            ? [
                `  NOTE: ${consoleEmail} was not made the demo's approver: ${refused.map((i) => i.message).join("; ")}`,
              ]
            : []),
          "",
        ]
      : []),
    "Ctrl-C stops the stack; state survives a restart.",
  ];
  return lines.join("\n");
}

/**
 * A port another process holds: name the option that moves it ("port 2525 is in use; pass --smtp-port
 * or stop the process using it"). Undefined when `err` is something else.
 */
export function portInUse(
  err: unknown,
  o: Omit<StartOptions, "dir" | "config" | "consoleEmail" | "console">,
) {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e?.code !== "EADDRINUSE") return undefined;
  const flags: [number, string][] = [
    [o.smtpPort, "--smtp-port"],
    [o.awsPort, "--aws-port"],
    [o.dynamodbPort, "--dynamodb-port"],
    [o.sesPort, "--ses-port"],
    [o.consolePort, "--console-port (or --no-console)"],
  ];
  const flag = flags.find(([p]) => p === e.port)?.[1];
  const port = e.port ?? /:(\d+)$/.exec(e.message)?.[1] ?? "?";
  return new CommandFailure(
    flag
      ? `port ${port} is in use; pass ${flag} or stop the process using it`
      : `port ${port} is in use; stop the process using it, or move the stack with --smtp-port, --aws-port, --dynamodb-port, --ses-port and --console-port`,
  );
}

function untilSignal(): Promise<void> {
  return new Promise((res) => {
    const done = () => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      res();
    };
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
}

const rel = (p: string): string => relative(process.cwd(), p) || ".";

const consoleLogger = {
  debug: () => {},
  warn: (m: string, extra?: Record<string, unknown>) => console.warn(m, extra ?? ""),
  info: (m: string, extra?: Record<string, unknown>) => console.log(m, extra ?? ""),
  error: (m: string, extra?: Record<string, unknown>) => console.error(m, extra ?? ""),
};
