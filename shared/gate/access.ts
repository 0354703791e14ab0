import { type AccessRule, SUBDOMAIN_WILDCARD } from "../config/index.ts";
import { PosternError } from "../errors.ts";

/**
 * Inbound access control (G3), and the same algebra for toolkit sender gates (G11).
 *
 * A layer is a list of allow/deny rules. Within a layer a matching deny wins, then a matching allow, then the
 * layer default; a layer with any allow rule is default-deny (an allow list), a layer without one admits. The
 * final decision is the AND of every layer, so adding a layer can only narrow. Nothing here depends on rule
 * order, so an operator cannot change an outcome by reordering a table.
 */

export type LayerName = "ceiling" | "agent";
export type Effect = "allow" | "deny";

export interface AccessDecision {
  readonly allowed: boolean;
  /** Denied: the layer that denied. Allowed: the innermost layer whose allow rule matched, or null if none did. */
  readonly layer: LayerName | null;
  /** The rule that decided; null when a layer's default decided. */
  readonly rule: AccessRule | null;
}

/** One routing key for the whole gate: senders (G2/G3) and recipients (G1) are keyed the same way. */
export { routingKey } from "./address.ts";

/**
 * `*@**.example.com`: the key's domain (after its last `@`, which a domain cannot contain) is example.com or ends
 * in `.example.com`. Matching whole labels is the point: a plain suffix would also cover `evil-example.com`,
 * a stranger's domain that an allow rule for example.com would then admit; `example.com.evil` matches neither.
 */
function matchSubdomains(domain: string, key: string): boolean {
  // The schema requires a domain here; anything else means validation was bypassed (see below).
  if (domain === "" || domain.includes("*") || domain.includes("@"))
    throw new PosternError(
      "definition-invalid",
      `access pattern needs a plain domain after '${SUBDOMAIN_WILDCARD}': ${SUBDOMAIN_WILDCARD}${domain}`,
    );
  const at = key.lastIndexOf("@");
  if (at < 0) return false;
  const keyDomain = key.slice(at + 1);
  return keyDomain === domain || keyDomain.endsWith(`.${domain}`);
}

/**
 * Full-string match of an exact pattern, one with a single `*` (any run, possibly empty), or `*@**.<domain>`
 * (that domain and its subdomains). No regular expression is built from operator input, so a pattern can
 * neither inject syntax nor backtrack.
 */
export function matchPattern(pattern: string, key: string): boolean {
  if (pattern.startsWith(SUBDOMAIN_WILDCARD))
    return matchSubdomains(pattern.slice(SUBDOMAIN_WILDCARD.length), key);
  const star = pattern.indexOf("*");
  if (star < 0) return pattern === key;
  // The config schema allows one wildcard; a second means validation was bypassed. Throw rather than guess,
  // since a deny rule that silently never matched would fail open.
  if (pattern.indexOf("*", star + 1) >= 0)
    throw new PosternError("definition-invalid", `access pattern has more than one '*': ${pattern}`);
  const prefix = pattern.slice(0, star);
  const suffix = pattern.slice(star + 1);
  return key.length >= prefix.length + suffix.length && key.startsWith(prefix) && key.endsWith(suffix);
}

interface LayerVerdict {
  readonly effect: Effect;
  readonly rule: AccessRule | null;
}

/** Smallest pattern first, so the reported rule does not depend on the order rules were stored in. */
function canonicalFirst(rules: readonly AccessRule[]): AccessRule | null {
  let best: AccessRule | null = null;
  for (const r of rules) if (best === null || r.pattern < best.pattern) best = r;
  return best;
}

function decideLayer(rules: readonly AccessRule[], key: string): LayerVerdict {
  const matching = rules.filter((r) => matchPattern(r.pattern, key));
  const deny = canonicalFirst(matching.filter((r) => r.effect === "deny"));
  if (deny) return { effect: "deny", rule: deny };
  const allow = canonicalFirst(matching.filter((r) => r.effect === "allow"));
  if (allow) return { effect: "allow", rule: allow };
  // Any allow rule turns the layer into an allow list: a sender it does not name is out.
  const isAllowList = rules.some((r) => r.effect === "allow");
  return { effect: isAllowList ? "deny" : "allow", rule: null };
}

/** One layer's verdict for a routing key: deny match, then allow match, then the layer default. */
export function evaluateLayer(rules: readonly AccessRule[], key: string): Effect {
  return decideLayer(rules, key).effect;
}

/**
 * Ceiling (committed config) AND agent rules (admin table). An agent with no rules inherits the ceiling; agent
 * rules can never admit a sender the ceiling refuses. `key` must already be a routing key.
 */
export function decideAccess(
  key: string,
  ceiling: readonly AccessRule[],
  agentRules: readonly AccessRule[],
): AccessDecision {
  const outer = decideLayer(ceiling, key);
  if (outer.effect === "deny") return { allowed: false, layer: "ceiling", rule: outer.rule };
  const inner = decideLayer(agentRules, key);
  if (inner.effect === "deny") return { allowed: false, layer: "agent", rule: inner.rule };
  if (inner.rule) return { allowed: true, layer: "agent", rule: inner.rule };
  if (outer.rule) return { allowed: true, layer: "ceiling", rule: outer.rule };
  return { allowed: true, layer: null, rule: null };
}

/** The generic n-layer form (toolkit sender gates stack more layers): allowed only if every layer allows. */
export function allowedByAll(key: string, layers: readonly (readonly AccessRule[])[]): boolean {
  return layers.every((rules) => evaluateLayer(rules, key) === "allow");
}
