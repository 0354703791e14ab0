import { lookup } from "node:dns/promises";

/** Every address a host name resolves to. Injected so tests (and a future DoH resolver) replace the system one. */
export type HostResolver = (host: string) => Promise<readonly string[]>;

/**
 * The system resolver, asking for every address: the guard must see all of them, because the connection may
 * use any (Happy Eyeballs tries several), so one private answer among public ones refuses the host.
 */
export const systemResolver: HostResolver = async (host) => {
  const answers = await lookup(host, { all: true, order: "verbatim" });
  return answers.map((a) => a.address);
};
