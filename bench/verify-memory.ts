/**
 * One row of `npm run bench`'s memory table, in a fresh process (bench/run.ts starts it with --expose-gc):
 *
 *   verify <zone.json> <small.eml> <big.eml>   the verify core (shared/intake/process.ts) over in-memory stores,
 *                                              as test/helpers/verify-world.ts assembles it: the small mail first
 *                                              (the baseline), then the big one. Each mail is in the store before
 *                                              the measurement starts (as in S3); verify's own read of it counts
 *   postal-mime <small.eml> <big.eml>          postal-mime's own parse alone, nothing of Postern loaded: what
 *                                              parsing the same mail costs without shared/mail's decoder
 *
 * Prints JSON: each mail's peak RSS growth in bytes, from the RSS after a full GC to the process's high-water
 * mark (getrusage maxrss) once the mail is handled.
 */
import { readFileSync } from "node:fs";

const exposed = (globalThis as { gc?: () => void }).gc;
if (!exposed) throw new Error("run with --expose-gc");
const gc: () => void = exposed;

async function peakGrowth(work: () => Promise<void>): Promise<number> {
  gc();
  gc();
  const before = process.memoryUsage().rss;
  await work();
  return process.resourceUsage().maxRSS * 1024 - before;
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "postal-mime") {
  const { default: PostalMime } = await import("postal-mime");
  const [small, big] = args.map((f) => readFileSync(f));
  if (!small || !big) throw new Error("usage: postal-mime <small.eml> <big.eml>");
  const baseline = await peakGrowth(async () => void (await PostalMime.parse(small)));
  const growth = await peakGrowth(async () => void (await PostalMime.parse(big)));
  process.stdout.write(JSON.stringify({ baseline, growth }));
} else if (mode === "verify") {
  const { verifyWorld } = await import("../test/helpers/verify-world.ts");
  const { inboundEvent } = await import("../test/fakes/builders.ts");
  const { processInbound } = await import("../shared/intake/process.ts");
  const { zoneResolver } = await import("../shared/runtime/zone-resolver.ts");
  const [zoneFile, smallFile, bigFile] = args;
  if (!zoneFile || !smallFile || !bigFile) throw new Error("usage: verify <zone.json> <small.eml> <big.eml>");
  const world = verifyWorld({
    resolver: zoneResolver(JSON.parse(readFileSync(zoneFile, "utf8"))),
    config: {
      attachments: {
        maxMessageBytes: 20 * 1024 * 1024,
        maxAttachmentBytes: 20 * 1024 * 1024,
        maxTotalAttachmentBytes: 20 * 1024 * 1024,
      },
    },
  });
  const stored = async (file: string, sesMessageId: string) => {
    const event = inboundEvent({ sesMessageId });
    await world.blobs.put(event.objectKey, readFileSync(file));
    return event;
  };
  const accept = (event: Awaited<ReturnType<typeof stored>>) => async () => {
    const [summary] = await processInbound(event, world.deps);
    if (summary?.verdict !== "accept")
      throw new Error(`${event.objectKey}: ${summary?.reason}, not accepted`);
  };
  const baseline = await peakGrowth(accept(await stored(smallFile, "ses-small")));
  const growth = await peakGrowth(accept(await stored(bigFile, "ses-big")));
  process.stdout.write(JSON.stringify({ baseline, growth }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
