import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { PosternError } from "../errors.ts";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, "Signature scheme"): HMAC-SHA256 over
 * `${id}.${timestamp}.${body}` keyed by the base64 part of a `whsec_` secret, sent as `v1,<base64>`. The reference
 * library signs; the tests verify with it too, and check one signature by the spec's formula by hand.
 */

/** 32 random bytes: the spec asks for 24-64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export interface SignedHeaders {
  readonly "webhook-id": string;
  readonly "webhook-timestamp": string;
  readonly "webhook-signature": string;
}

/**
 * One signature per valid secret, space-separated (the spec's rotation form): a receiver holding either the old or
 * the new secret verifies the same delivery during the overlap.
 */
export function signDelivery(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new PosternError("invalid-argument", "signDelivery: no secret");
  const signatures = secrets.map((s) => new Webhook(s).sign(id, at, body));
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
