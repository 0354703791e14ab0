import { type Command, Option } from "commander";
import { CommandFailure, describeError, UsageError } from "../errors.ts";
import type { Target } from "../target.ts";
import type { AdminIo } from "./admin-io.ts";
import type { WebhookPorts } from "./webhooks-actions.ts";

interface Flags {
  target?: "local" | "aws";
  dataDir?: string;
  resources?: string;
  config?: string;
}

type Body = (
  act: typeof import("./webhooks-actions.ts"),
  ports: WebhookPorts,
  io: AdminIo,
  catalog: () => import("../../shared/admin/index.ts").AdminCatalog,
) => Promise<unknown>;

/**
 * `postern webhooks add|list|remove|rotate|test|show` (docs/events.md). Endpoints live in the `webhooks` admin table;
 * their signing secrets in Secrets Manager (`postern/webhooks/<id>`) or, locally, in the stack's `secrets.json`.
 * Everything is loaded when a command runs, so `postern --help` stays cheap.
 */
export function registerWebhooksCommands(program: Command): void {
  const run = async (flags: Flags, body: Body): Promise<void> => {
    const { processIo, ioLogger } = await import("./admin-io.ts");
    const io = processIo;
    let target: Target | undefined;
    try {
      if (flags.target === "local" && flags.resources)
        throw new UsageError("--resources names AWS resources; it cannot be used with --target local");
      const [act, { AdminRepo, AuditRepo }, events, { catalogFor }, { openTarget }, path] = await Promise.all(
        [
          import("./webhooks-actions.ts"),
          import("../../shared/store/index.ts"),
          import("../../shared/webhooks/index.ts"),
          import("./admin-catalog.ts"),
          import("../target.ts"),
          import("node:path"),
        ],
      );
      target = await openTarget({
        target: flags.target ?? (flags.resources ? "aws" : "local"),
        ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
        ...(flags.resources ? { resourcesFile: flags.resources } : {}),
      });
      const t = target;
      const state = events.dynamoWebhookState({ dynamo: t.clients.dynamo, tables: t.resources.tables });
      let secrets: import("../../shared/webhooks/index.ts").SecretStore;
      if (t.kind === "aws") {
        const [{ SecretsManagerClient }, { awsSecretsStore }] = await Promise.all([
          import("@aws-sdk/client-secrets-manager"),
          import("../../shared/secrets/index.ts"),
        ]);
        const client = new SecretsManagerClient({ region: t.resources.region });
        secrets = events.secretManagerStore(awsSecretsStore({ client }), { ttlMs: 0 });
      } else {
        const dataDir = path.resolve(flags.dataDir ?? path.join(".postern", "data"));
        const { localSecretsFile } = await import("../local/secrets-file.ts");
        secrets = events.fileSecretStore(localSecretsFile(path.dirname(dataDir)));
      }
      const ports: WebhookPorts = {
        repo: new AdminRepo({
          dynamo: t.clients.dynamo,
          tables: t.resources.tables,
          logger: ioLogger(io),
          audit: {
            log: new AuditRepo({ dynamo: t.clients.dynamo, tables: t.resources.tables }),
            actor: (await import("./cli-actor.ts")).cliActor(),
          },
        }),
        secrets,
        log: state.log,
        breaker: (id) => state.breaker.get(id),
        enqueue: act.sqsEnqueue(t.clients.sqs, t.resources.queues.events),
        reach: {
          resolve: (await import("../../shared/net/index.ts")).systemResolver,
          // The running stack says how it was started; a stack not running yet will read this shell's setting.
          allowLoopback:
            t.kind !== "aws" && (t.webhookLoopback ?? process.env.POSTERN_WEBHOOKS_ALLOW_LOOPBACK === "1"),
          local: t.kind !== "aws",
        },
      };
      const catalog = () =>
        catalogFor({
          target: t,
          ...(flags.config ? { config: flags.config } : {}),
          ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
        });
      const result = await body(act, ports, io, catalog);
      process.exitCode = result === false ? 1 : 0;
    } catch (err) {
      const e = describeError(err);
      io.err(`error: ${err instanceof CommandFailure ? err.message : e.line}\n`);
      process.exitCode = e.exitCode;
    } finally {
      await target?.close();
    }
  };

  const hooks = program
    .command("webhooks")
    .description("signed events to the operator's own systems (Standard Webhooks): endpoints and deliveries");
  const leaf = (spec: string, description: string): Command =>
    hooks
      .command(spec)
      .description(description)
      .addOption(new Option("--target <where>", "local (default) or aws").choices(["local", "aws"]))
      .option("--data-dir <dir>", "local emulator state (default .postern/data)")
      .option("--resources <file>", "AWS resource names as JSON (the stack outputs); implies --target aws")
      .option("--config <file>", "deployment config that writes are checked against (as the admin commands)");

  leaf("add <id>", "register an endpoint and write its new signing secret to a file")
    .requiredOption(
      "--url <url>",
      "where events are POSTed (https; in AWS only public addresses are reached)",
    )
    .requiredOption(
      "--events <types>",
      "comma-separated event types, or `all`: mail.accepted, mail.refused, run.completed, run.failed, " +
        "send.delivered, send.failed, plan.pending, plan.applied, plan.failed, plan.cancelled",
    )
    .requiredOption(
      "--secret-out <file>",
      "new file (mode 0600) the signing secret is written to; never printed; in a git work tree only where git ignores it (.postern/)",
    )
    .option(
      "--include-mail-text",
      "also send accepted mail's subject and text (off: ids and reason codes only)",
    )
    .option("--description <text>", "a note for operators")
    .option("--disabled", "register without sending yet")
    .action((id: string, o: Flags & Omit<import("./webhooks-actions.ts").AddArgs, "id">) =>
      run(o, (act, p, io, catalog) => act.webhooksAdd(p, io, { ...o, id }, catalog())),
    );
  leaf("list", "list endpoints")
    .option("--json", "JSON output")
    .action((o: Flags & { json?: boolean }) =>
      run(o, (act, p, io) => act.webhooksList(p, io, o.json ?? false)),
    );
  leaf("remove <id>", "remove an endpoint and its secrets; its queued deliveries are dropped").action(
    (id: string, o: Flags) => run(o, (act, p, io) => act.webhooksRemove(p, io, id)),
  );
  leaf("rotate <id>", "new signing secret; the old one keeps signing too until the overlap ends")
    .requiredOption(
      "--secret-out <file>",
      "new file (mode 0600) the new secret is written to; never printed; in a git work tree only where git ignores it (.postern/)",
    )
    .option("--overlap-hours <n>", "hours both secrets sign every delivery", "24")
    .action((id: string, o: Flags & { secretOut: string; overlapHours: string }) =>
      run(o, (act, p, io) => act.webhooksRotate(p, io, id, o.secretOut, Number(o.overlapHours))),
    );
  leaf("test <id>", "send a webhook.test event through the queue, wait for it, and show recent deliveries")
    .option("--wait <seconds>", "how long to wait for the delivery's outcome", "15")
    .option("--limit <n>", "recent deliveries shown", "20")
    .action((id: string, o: Flags & { wait: string; limit: string }) =>
      run(o, (act, p, io) =>
        act.webhooksTest(p, io, id, { waitSeconds: Number(o.wait), limit: Number(o.limit) }),
      ),
    );
  leaf("show <id>", "an endpoint, its breaker, and its recent deliveries and failures")
    .option("--limit <n>", "recent deliveries shown", "20")
    .option("--json", "JSON output")
    .action((id: string, o: Flags & { limit: string; json?: boolean }) =>
      run(o, async (act, p, io) => {
        await act.webhooksShow(p, io, id, { limit: Number(o.limit), json: o.json ?? false });
      }),
    );
}
