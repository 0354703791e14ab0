import { type HostResolver, isPublicAddress, vetTarget } from "../net/index.ts";
import { type FailWithDetail, fail, type Ok, ok } from "../result.ts";

/** The local stack's switch for receivers on this machine; the deployed worker has none. */
export const LOOPBACK_SWITCH = "POSTERN_WEBHOOKS_ALLOW_LOOPBACK=1";

/** Where an endpoint is being registered: which addresses its deliveries may reach. */
export interface EndpointReachOptions {
  readonly resolve: HostResolver;
  /** The local stack runs with the loopback switch on (never in AWS). */
  readonly allowLoopback: boolean;
  /** A local stack, where the switch exists and can be named; AWS has no such setting. */
  readonly local: boolean;
}

export function isLoopback(address: string): boolean {
  return address === "::1" || /^127\./.test(address) || /^::ffff:127\./.test(address);
}

/**
 * Which addresses a delivery may connect to: shared/net's public-address policy, which the local switch widens to
 * loopback only. Private ranges and the metadata address (169.254.169.254) stay refused either way: a signed
 * request from inside the account must not reach the VPC or the credentials endpoint (SSRF).
 */
export function endpointAddressAllowed(allowLoopback: boolean): (address: string) => boolean {
  return allowLoopback ? (a) => isLoopback(a) || isPublicAddress(a) : isPublicAddress;
}

export type EndpointReachResult = Ok | FailWithDetail<"address-not-public" | "scheme-not-allowed">;

/**
 * The delivery's own rule (pinned-post.ts), applied when an endpoint is added: an endpoint every delivery would
 * refuse (`address-not-public`, `scheme-not-allowed`) is refused at once, naming the switch where it would help,
 * instead of being stored to fail every event. A name that does not resolve yet is left to delivery, which checks
 * every address again at each POST (a name's answers can change after the item is written).
 */
export async function endpointReach(url: string, opts: EndpointReachOptions): Promise<EndpointReachResult> {
  const vetted = await vetTarget(url, {
    resolve: opts.resolve,
    allow: endpointAddressAllowed(opts.allowLoopback),
  });
  const hint = (loopback: boolean) =>
    loopback && opts.local && !opts.allowLoopback
      ? `; a receiver on this machine is reached only when the local stack runs with ${LOOPBACK_SWITCH} (npm start)`
      : loopback && !opts.local
        ? "; the deployed worker never reaches loopback"
        : "";
  if (!vetted.ok) {
    if (vetted.reason !== "address-not-public") return ok();
    const loopback = /\bloopback\b/.test(vetted.detail ?? "");
    return fail(
      "address-not-public",
      `${vetted.detail}: every delivery would fail address-not-public${hint(loopback)}${
        loopback ? "" : " (private and metadata addresses are refused with or without the loopback switch)"
      }`,
    );
  }
  const { url: parsed, addresses } = vetted.target;
  const loopbackOnly = addresses.every((a) => isLoopback(a.address));
  // A signed event in clear text can be read on the way: https, except to this machine in the local stack.
  if (parsed.protocol !== "https:" && !(opts.allowLoopback && loopbackOnly))
    return fail(
      "scheme-not-allowed",
      `webhook endpoints must use https: every delivery would fail scheme-not-allowed${hint(loopbackOnly)}`,
    );
  return ok();
}
