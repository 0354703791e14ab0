import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { PosternError } from "../../shared/errors.ts";

/** The loopback address every listener of the local stack binds to. */
export const LOOPBACK = "127.0.0.1";

type FauxqsOptions = NonNullable<Parameters<typeof startFauxqs>[0]>;

/** The part of a Fastify instance this module touches (fastify is fauxqs's dependency, not ours). */
interface FastifyLike {
  listen(opts?: { port?: number; host?: string }, ...rest: unknown[]): unknown;
  readonly server: Server;
}

/** Fastify publishes every instance it builds here, synchronously, from its constructor. */
const FASTIFY_INIT = "fastify.initialization";

/**
 * fauxqs 2.4.1 on 127.0.0.1 only. Its `startFauxqs` listens on `0.0.0.0` whatever it is given (its `host` option
 * only names the host in queue URLs), so anyone on the developer's network could read raw mail from the bucket
 * and inject queue messages. fauxqs builds its Fastify server synchronously inside `startFauxqs`, before the
 * first await; Fastify announces that instance on its `fastify.initialization` diagnostics channel, and this
 * subscribes for exactly that synchronous stretch and has that one instance listen on loopback instead. Then it
 * checks the bound address, so a fauxqs that stops building its server this way fails the start instead of
 * silently listening everywhere.
 */
export async function startLoopbackFauxqs(opts: Omit<FauxqsOptions, "host">): Promise<FauxqsServer> {
  const built: FastifyLike[] = [];
  const onInit = (message: unknown) => {
    const app = (message as { fastify: FastifyLike }).fastify;
    const listen = app.listen.bind(app);
    app.listen = (o, ...rest) => listen({ ...o, host: LOOPBACK }, ...rest);
    built.push(app);
  };
  subscribe(FASTIFY_INIT, onInit);
  let starting: Promise<FauxqsServer>;
  try {
    starting = startFauxqs(opts);
  } finally {
    unsubscribe(FASTIFY_INIT, onInit);
  }
  const server = await starting;
  const bound = built.map((b) => (b.server.address() as AddressInfo | null)?.address);
  if (built.length !== 1 || bound[0] !== LOOPBACK) {
    await server.stop();
    throw new PosternError(
      "dependency-failed",
      `fauxqs did not build one Fastify server bound to ${LOOPBACK} (bound: ${bound.join(", ") || "none seen"}); ` +
        "this module relies on fauxqs 2.4.1 building it inside startFauxqs: check the fauxqs version",
    );
  }
  return server;
}
