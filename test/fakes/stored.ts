/**
 * What a store gives back is a copy of what it was given, never the caller's object: DynamoDB and S3 serialise.
 * Undefined attributes are dropped, as the document client's `removeUndefinedValues` does; bytes stay bytes.
 */
export function stored<T>(value: T): T {
  return strip(structuredClone(value)) as T;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return value;
  const out = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) {
    if (v === undefined) delete out[k];
    else out[k] = strip(v);
  }
  return out;
}
