/** The console's two groups (Cognito groups in AWS; the local sign-in link is an admin). */
export const GROUPS = { viewers: "viewers", admins: "admins" } as const;
export type Group = (typeof GROUPS)[keyof typeof GROUPS];

/** Who is signed in, from a verified ID token: nothing here comes from a header or a form. */
export interface Principal {
  readonly sub: string;
  /** The verified e-mail address, lower-cased: what names an approver (G14) and the audit log's actor. */
  readonly email: string;
  readonly groups: readonly Group[];
}

export const canRead = (p: Principal): boolean =>
  p.groups.includes(GROUPS.viewers) || p.groups.includes(GROUPS.admins);
export const canWrite = (p: Principal): boolean => p.groups.includes(GROUPS.admins);

/**
 * Claims → principal. A token without a verified e-mail is refused (the e-mail is the approver identity); unknown
 * groups are ignored, so a group someone adds to the pool grants nothing here.
 */
export function principalFromClaims(claims: Record<string, unknown>): Principal | null {
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
  if (!email || claims.email_verified !== true || typeof claims.sub !== "string") return null;
  const raw = claims["cognito:groups"];
  const groups = (Array.isArray(raw) ? raw : []).filter(
    (g): g is Group => g === GROUPS.viewers || g === GROUPS.admins,
  );
  return { sub: claims.sub, email, groups };
}
