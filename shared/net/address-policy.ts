import { isIPv4, isIPv6 } from "node:net";
import ipaddr from "ipaddr.js";
import { type Fail, fail, type Ok, ok } from "../result.ts";

/**
 * Which IP addresses a server-side fetch may connect to. The threat is SSRF: a model (or a page it was told to
 * read) naming an internal service, the instance metadata endpoint (169.254.169.254, the classic credential
 * theft), or the emulators on loopback. The rule is an allow-list: only globally routable unicast passes, every
 * special-purpose range (IANA registries, RFC 6890) is refused, and IPv6 forms that embed an IPv4 address are
 * judged by the IPv4 address they reach.
 */
export type AddressCheckResult = Ok | Fail<NonPublicRange>;

/** The range a refused address is in, named after ipaddr.js's ranges (`ipv4-loopback`, `6to4-ipv4-private`). */
export type NonPublicRange =
  | "invalid"
  | V4Range
  | `ipv6-${Exclude<ReturnType<ipaddr.IPv6["range"]>, "unicast">}`
  | "ipv6-not-global"
  | `${Via}-${V4Range}`;
type V4Range = `ipv4-${Exclude<ReturnType<ipaddr.IPv4["range"]>, "unicast">}`;
type Via = "ipv4-mapped" | "nat64" | "6to4";

const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

export function checkAddress(address: string): AddressCheckResult {
  // A zone index (fe80::1%eth0) only ever qualifies link-local addresses; drop it before parsing.
  const bare = address.split("%")[0] ?? "";
  // Strict forms only: DNS answers and URL hosts arrive canonical, and a legacy form here ("0x7f.1") would
  // mean something upstream did not normalise — refuse rather than guess what the socket layer makes of it.
  if (isIPv4(bare) && ipaddr.IPv4.isValidFourPartDecimal(bare)) return checkV4(ipaddr.IPv4.parse(bare));
  if (!isIPv6(bare)) return fail("invalid");
  // Re-serialise with the WHATWG URL parser before ipaddr.js reads it: ipaddr.js 2.5 reads the IPv4-compatible
  // "::127.0.0.1" as the mapped "::ffff:127.0.0.1", and the guard must see the address the socket will use.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  if (!ipaddr.IPv6.isValid(canonical)) return fail("invalid");
  return checkV6(ipaddr.IPv6.parse(canonical));
}

export const isPublicAddress = (address: string): boolean => checkAddress(address).ok;

function checkV4(addr: ipaddr.IPv4): Ok | Fail<V4Range> {
  // ipaddr.js names loopback, private (RFC 1918), linkLocal (incl. metadata), carrierGradeNat, unspecified (0/8),
  // multicast, broadcast, reserved (documentation, benchmarking, 240/4), as112, amt. Only `unicast` is public.
  const range = addr.range();
  return range === "unicast" ? ok() : fail(`ipv4-${range}`);
}

function checkV6(addr: ipaddr.IPv6): AddressCheckResult {
  const range = addr.range();
  // Forms that carry an IPv4 address reach that IPv4 address: judge it, or ::ffff:127.0.0.1 is loopback.
  if (range === "ipv4Mapped") return embedded(addr.toIPv4Address(), "ipv4-mapped");
  const parts = addr.parts;
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): a DNS64 network synthesises these for IPv4-only hosts.
  if (range === "rfc6052" && parts[2] === 0 && parts.slice(3, 6).every((p) => p === 0)) {
    return embedded(v4FromWords(parts[6] ?? 0, parts[7] ?? 0), "nat64");
  }
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 routes to the IPv4 address AA.BB.CC.DD.
  if (range === "6to4") return embedded(v4FromWords(parts[1] ?? 0, parts[2] ?? 0), "6to4");
  // Everything else must be plain global unicast inside 2000::/3. That excludes ::/8 wholesale, including the
  // deprecated IPv4-compatible ::a.b.c.d (RFC 4291 §2.5.5.1), which ipaddr.js reports as `unicast`.
  if (range !== "unicast") return fail(`ipv6-${range}`);
  if (!addr.match(IPV6_GLOBAL_UNICAST)) return fail("ipv6-not-global");
  return ok();
}

function embedded(v4: ipaddr.IPv4, via: Via): AddressCheckResult {
  const verdict = checkV4(v4);
  return verdict.ok ? verdict : fail(`${via}-${verdict.reason}`);
}

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}
