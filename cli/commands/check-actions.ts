import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AdminSnapshot, adminDocument } from "../../shared/admin/index.ts";
import { ConfigError, formatIssues, type LoadedConfig, loadConfigFile } from "../../shared/config/index.ts";
import { loadZoneFile, zoneFileResolver, zoneResolver } from "../../shared/runtime/index.ts";
import { AdminRepo } from "../../shared/store/index.ts";
import { describeError, UsageError } from "../errors.ts";
import { ensureDemoFiles } from "../local/demo.ts";
import { type CheckResult, checkMessage } from "../mail-check.ts";
import { openTableTarget } from "../target.ts";
import { type AdminIo, ioLogger, json, processIo } from "./admin-io.ts";

export interface CheckArgs {
  readonly rcpt: string;
  readonly config?: string;
  readonly admin?: string;
  readonly dns?: string;
  readonly now?: string;
  readonly show?: boolean;
  readonly mailFrom?: string;
  readonly dir?: string;
}

/**
 * `postern check`: run the real inbound gate on one message and print one JSON object. Operators use it to answer
 * "why was this refused?"; the tests use it too. Any verdict exits 0; usage and config errors exit 2.
 */
export async function runCheck(file: string, args: CheckArgs, io: AdminIo = processIo): Promise<number> {
  let result: CheckResult;
  try {
    const dir = args.dir ?? ".postern";
    const raw = await readInput(file, dir);
    const now = args.now ? parseNow(args.now) : new Date();
    const loaded = loadConfig(args.config, dir);
    const resolver = args.dns
      ? zoneResolver(loadZoneFile(args.dns))
      : zoneFileResolver(join(dir, "dns.json"));
    const admin = args.admin ? adminFromFile(args.admin) : await adminFromLocal(io);
    result = await checkMessage({
      raw,
      rcpt: args.rcpt,
      // The envelope sender: a bounce has the null path ("<>"); default is a non-null placeholder.
      mailFrom:
        args.mailFrom === undefined ? "postern-check@invalid" : args.mailFrom === "<>" ? "" : args.mailFrom,
      config: loaded.config,
      admin,
      resolver,
      now,
      show: args.show ?? false,
    });
  } catch (err) {
    // Usage and config errors exit 2; an unreachable stack or a broken admin table is a failure (1).
    const e = describeError(err);
    io.err(`postern check: ${e.line}\n`);
    return e.exitCode;
  }
  io.out(json(result));
  return 0;
}

/** An SES message id (as `dev send`, `runs show` and the console's refused-mail page print it). */
const STORED_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * A file, `-` for stdin, or the id of a stored mail (`inbound/<id>` in the local stack's bucket) when no file of
 * that name exists: the mail behind a refusal, fetched as it arrived.
 */
async function readInput(file: string, dir: string): Promise<Buffer> {
  if (file !== "-" && !existsSync(file) && STORED_ID.test(file)) return readStored(file, dir);
  try {
    return file === "-" ? readFileSync(0) : readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

async function readStored(id: string, dir: string): Promise<Buffer> {
  // The emulators and S3's client load only here: a file or stdin needs neither.
  const [{ openTarget }, { BlobStore }, { PREFIXES }] = await Promise.all([
    import("../target.ts"),
    import("../../shared/store/index.ts"),
    import("../../shared/config/index.ts"),
  ]);
  const target = await openTarget({ target: "local", dataDir: join(dir, "data") });
  try {
    const bytes = await new BlobStore({ s3: target.clients.s3, bucket: target.resources.bucket }).get(
      `${PREFIXES.inbound}${id}`,
    );
    if (!bytes) throw new UsageError(`no file ${id}, and no stored mail inbound/${id}`);
    return Buffer.from(bytes);
  } finally {
    await target.close();
  }
}

function parseNow(s: string): Date {
  const d = new Date(s);
  if (Number.isNaN(d.getTime()))
    throw new UsageError(`--now must be an ISO-8601 time, got ${JSON.stringify(s)}`);
  return d;
}

function loadConfig(path: string | undefined, dir: string): LoadedConfig {
  if (path) return loadConfigFile(path);
  if (existsSync("postern.config.json")) return loadConfigFile("postern.config.json");
  return loadConfigFile(ensureDemoFiles(dir));
}

function adminFromFile(path: string): AdminSnapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new UsageError(`${path}: ${(err as Error).message}`);
  }
  const parsed = adminDocument.safeParse(raw);
  if (!parsed.success) throw new ConfigError(path, formatIssues(parsed.error.issues));
  return parsed.data;
}

async function adminFromLocal(io: AdminIo): Promise<AdminSnapshot> {
  const target = await openTableTarget({ target: "local" });
  try {
    return await new AdminRepo({
      dynamo: target.clients.dynamo,
      tables: target.resources.tables,
      logger: ioLogger(io),
    }).snapshot();
  } finally {
    await target.close();
  }
}
