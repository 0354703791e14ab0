/**
 * An endpoint's signing secrets (G16: never in the admin tables, logs or CLI output except the one time `add` and
 * `rotate` print the new secret for the operator to hand to the receiver). After a rotation the previous secret
 * stays valid until `previousUntil`: deliveries carry both signatures, so the receiver can switch at its own pace.
 */
export interface EndpointSecrets {
  readonly current: string;
  readonly previous?: string;
  /** ISO 8601; after it the previous secret no longer signs. */
  readonly previousUntil?: string;
}

export interface SecretStore {
  read(endpointId: string): Promise<EndpointSecrets | null>;
  write(endpointId: string, secrets: EndpointSecrets): Promise<void>;
  remove(endpointId: string): Promise<void>;
}

/** The secrets that sign a delivery made at `now`: the current one, and the previous one inside its overlap. */
export function signingSecrets(s: EndpointSecrets, now: Date): string[] {
  const keepPrevious =
    s.previous !== undefined && s.previousUntil !== undefined && Date.parse(s.previousUntil) > now.getTime();
  return keepPrevious ? [s.current, s.previous as string] : [s.current];
}

/** A rotation: a fresh current secret, the old one valid for `overlapSeconds` more. */
export function rotated(
  s: EndpointSecrets,
  fresh: string,
  now: Date,
  overlapSeconds: number,
): EndpointSecrets {
  return {
    current: fresh,
    previous: s.current,
    previousUntil: new Date(now.getTime() + overlapSeconds * 1000).toISOString(),
  };
}
