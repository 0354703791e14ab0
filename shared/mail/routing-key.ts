/**
 * The key access rules match on (G3): lower-case, `+tag` stripped from the local part.
 * `Ceo+finance@Thescoop.com` → `ceo@thescoop.com`. A local part that starts with "+" keeps it,
 * so the key never has an empty local part.
 */
export function routingKey(address: string): string {
  const lower = address.trim().toLowerCase();
  const at = lower.lastIndexOf("@");
  if (at < 0) return lower;
  const local = lower.slice(0, at);
  const plus = local.indexOf("+");
  return `${plus > 0 ? local.slice(0, plus) : local}@${lower.slice(at + 1)}`;
}
