import * as z from "zod";
import { DELEGATION_REFUSAL_TEXT, delegationRefusal } from "./delegated-signer.ts";

/**
 * The deployment config (`postern.config.json`): what must not change at run time. It is committed, validated at
 * synth and at start, and shipped to the functions. Admin tables narrow what it allows; they never widen it.
 */

/** A registered mail domain: lower-case A-label (IDNs must be given in punycode so comparisons are exact). */
export const domainName = z
  .string()
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    "must be a lower-case domain name in A-label form (e.g. agents.example.com; IDNs as xn--...)",
  );

/** `*@**.example.com`: any local part at example.com or at any subdomain of it (label boundary). */
export const SUBDOMAIN_WILDCARD = "*@**.";
/** Lower-case LDH labels (A-labels for IDNs), as sender domains reach the gate: a U-label would never match. */
const PATTERN_DOMAIN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * An access pattern (G3): an exact address, one `*` wildcard, or `*@**.<domain>` for a domain and all its
 * subdomains. Lower-case because it is matched against the routing key (lower-cased, +tag stripped); a
 * mixed-case pattern would silently never match. `**.` is only valid right after a leading `*@`, so no other
 * placement can be read two ways.
 */
export const accessPattern = z
  .string()
  .min(1)
  .refine((p) => p === p.toLowerCase(), "must be lower-case (patterns match the lower-cased routing key)")
  .refine(
    (p) => p.startsWith(SUBDOMAIN_WILDCARD) || (p.match(/\*/g) ?? []).length <= 1,
    "may hold at most one `*` wildcard; `**.` only as `*@**.example.com` (the domain and every subdomain)",
  )
  .refine(
    (p) => !p.startsWith(SUBDOMAIN_WILDCARD) || PATTERN_DOMAIN.test(p.slice(SUBDOMAIN_WILDCARD.length)),
    "`*@**.` must be followed by a lower-case domain (A-labels for IDNs), like `*@**.example.com`",
  )
  .refine(
    (p) => p.includes("@") || p === "*",
    "must be an address, `*@domain`, `*` or similar (needs an `@`)",
  )
  .refine((p) => !/\s/.test(p), "must not contain whitespace");

export const accessEffect = z.enum(["allow", "deny"]);
export const accessRule = z.object({ pattern: accessPattern, effect: accessEffect }).strict();
export type AccessRule = z.infer<typeof accessRule>;

export const egressClass = z.enum(["internal", "external"]);

/** Env-var names that may carry a key (G16): anything else is likely a misplaced secret value or typo. */
export const keyEnvName = z
  .string()
  .regex(
    /^[A-Z][A-Z0-9_]*(_API_KEY|_KEY|_TOKEN)$/,
    "must be an upper-case env-var name ending in _API_KEY, _KEY or _TOKEN (it names the variable; never put the key itself here)",
  );

/** A Secrets Manager ARN/name or an SSM parameter name holding a model key. Never the key itself. */
export const secretRef = z
  .string()
  .regex(
    /^(arn:aws[a-z-]*:secretsmanager:.+|ssm:\/.+|secretsmanager:.+)$/,
    "must be `secretsmanager:<name>`, `ssm:/<parameter>` or a Secrets Manager ARN",
  );

const modelBase = {
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "must be a short lower-case id ([a-z0-9._-])"),
  label: z.string().max(80).optional(),
  egress: egressClass,
  maxTokens: z.number().int().positive().max(200_000).default(4096),
};

export const scriptedModel = z
  .object({ ...modelBase, provider: z.literal("scripted"), script: z.string().min(1) })
  .strict();
export const openaiModel = z
  .object({
    ...modelBase,
    provider: z.literal("openai-compatible"),
    baseUrl: z.url(),
    model: z.string().min(1),
    apiKeyEnv: keyEnvName.optional(),
    apiKeySecret: secretRef.optional(),
  })
  .strict();
export const anthropicModel = z
  .object({
    ...modelBase,
    provider: z.literal("anthropic"),
    model: z.string().min(1),
    baseUrl: z.url().default("https://api.anthropic.com"),
    apiKeyEnv: keyEnvName.optional(),
    apiKeySecret: secretRef.optional(),
  })
  .strict();
export const bedrockModel = z
  .object({
    ...modelBase,
    provider: z.literal("bedrock"),
    modelId: z.string().min(1),
    region: z.string().optional(),
  })
  .strict();
export const modelEntry = z.discriminatedUnion("provider", [
  scriptedModel,
  openaiModel,
  anthropicModel,
  bedrockModel,
]);
export type ModelEntry = z.infer<typeof modelEntry>;

export const attachmentLimits = z
  .object({
    /** Whole raw message, bytes. SES itself caps inbound at 40 MB. */
    maxMessageBytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    maxAttachments: z.number().int().nonnegative().default(10),
    maxAttachmentBytes: z
      .number()
      .int()
      .positive()
      .default(5 * 1024 * 1024),
    maxTotalAttachmentBytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    /** Nesting depth of multipart containers; hostile trees nest thousands deep. */
    maxMimeDepth: z.number().int().positive().max(64).default(8),
    maxMimeParts: z.number().int().positive().max(1000).default(64),
    maxHeaderBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024),
  })
  .strict()
  .prefault({});

export const budgets = z
  .object({
    runsPerSenderPerDay: z.number().int().positive().default(50),
    runsPerAgentPerDay: z.number().int().positive().default(500),
    tokensPerSenderPerDay: z.number().int().positive().default(500_000),
    tokensPerAgentPerDay: z.number().int().positive().default(5_000_000),
  })
  .strict()
  .prefault({});

export const egressPolicy = z
  .object({
    /** May an `external` model receive record content at all (archive, other senders' mail, tool records)? */
    externalRecordContent: z.boolean().default(false),
    /** Data classes that never reach an external model, whatever the above says. */
    restrictedClasses: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .prefault({});

export const senderProofOptions = z
  .object({
    /** RFC 6532 UTF-8 local parts invite homograph spoofing; off unless an operator needs them. */
    allowNonAsciiLocalParts: z.boolean().default(false),
    minRsaKeyBits: z.number().int().min(1024).default(1024),
    /**
     * DKIM signatures evaluated per message at most, the topmost first, among those that could prove the From
     * (aligned d=, accepted algorithm, no l=, From signed). A relayed mail carries a few; a flood carries thousands.
     */
    maxSignatures: z.number().int().min(1).max(5).default(3),
    /** Each key lookup's deadline; lookups run together, so this is also the most one message waits on DNS. */
    keyLookupTimeoutMs: z.number().int().min(100).max(10_000).default(2000),
    /**
     * ARC sealers (RFC 8617) whose seals may stand in for an author signature that a list or forwarder broke:
     * the seal's d=, exact (no subdomain matches), lower-case A-label. None by default: ARC is then never evaluated.
     * Every sealer in a chain must be listed (shared/gate/arc-proof.ts says why).
     */
    trustedArcSealers: z
      .array(domainName)
      .default([])
      .refine((list) => new Set(list).size === list.length, "lists a sealer twice"),
    /**
     * Per From domain, the one signer domain the operator vouches for (`{"contoso.com": "contoso.onmicrosoft.com"}`):
     * a signature by it proves that From domain, under every other DKIM check. None by default; a shared signer (a
     * provider's own domain) is refused (delegated-signer.ts says which names can be vouched for).
     */
    delegatedSigners: z
      .record(domainName, domainName)
      .default({})
      .superRefine((map, ctx) => {
        for (const [fromDomain, signer] of Object.entries(map)) {
          const refused = delegationRefusal(fromDomain, signer);
          if (refused !== null)
            ctx.addIssue({
              code: "custom",
              path: [fromDomain],
              message: `${signer} ${DELEGATION_REFUSAL_TEXT[refused]}`,
            });
        }
      }),
  })
  .strict()
  .prefault({});

export const outboundOptions = z
  .object({
    configurationSet: z.string().optional(),
    maxRecipients: z.number().int().positive().max(50).default(20),
    /**
     * The operator's own mail domains beside the registered ones (where staff read mail, say `example.com` when
     * agents live at `agents.example.com`), subdomains included. A run started by a sender outside all of them
     * never reaches an address there by reply-all: the sender's signed Cc is a claim, not proof the person got the
     * mail, and an answer from the agent's trusted address would reach them (docs/outbound.md).
     */
    ownDomains: z.array(domainName).default([]),
  })
  .strict()
  .prefault({});

export const receiptRuleSet = z
  .object({
    /**
     * `existing`: add Postern's rules to the named, already active rule set (safe default).
     * `create`: create Postern's own set and ACTIVATE it, replacing the account's active set.
     */
    mode: z.enum(["existing", "create"]).default("existing"),
    name: z.string().min(1).default("postern"),
  })
  .strict()
  .prefault({});

/**
 * The operator console (docs/console.md): off unless enabled. In AWS it brings an invite-only Cognito user pool
 * (no self sign-up, MFA required) and the console on Lambda behind an HTTPS function URL.
 */
export const consoleOptions = z
  .object({
    enabled: z.boolean().default(false),
    /**
     * Prefix of the Cognito sign-in domain (`<prefix>.auth.<region>.amazoncognito.com`), unique in the region.
     * Default `postern-<account id>`.
     */
    domainPrefix: z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
        "must be lower-case letters, digits and hyphens (1-63), not starting or ending with a hyphen",
      )
      .refine(
        (p) => !/aws|amazon|cognito/.test(p),
        "must not contain aws, amazon or cognito (Cognito refuses it)",
      )
      .optional(),
    /** Cognito threat protection (the Plus feature plan, billed per user): blocks compromised credentials. */
    threatProtection: z.boolean().default(false),
    /** Minutes a sign-in lasts before Cognito asks again (the ID token's validity, 5-1440). */
    sessionMinutes: z.number().int().min(5).max(1440).default(60),
  })
  .strict()
  .prefault({});

export const deploymentConfig = z
  .object({
    $schema: z.string().optional(),
    domains: z.array(domainName).min(1, "list at least one registered domain"),
    inboundAccess: z.array(accessRule).default([]),
    recursionLimit: z.number().int().min(1).max(1000).default(50),
    /** The round limit: model rounds per run, at most (G10). Read it with `roundLimit` (shared/admin). */
    maxRounds: z.number().int().min(1).max(100).optional(),
    /** The round limit's former name, still read for one release (deployed configs carry it): use maxRounds. */
    maxToolTurns: z.number().int().min(1).max(100).optional(),
    attachments: attachmentLimits,
    budgets,
    models: z.array(modelEntry).min(1, "list at least one model in the catalog"),
    defaultModel: z.string().optional(),
    egress: egressPolicy,
    senderProof: senderProofOptions,
    outbound: outboundOptions,
    receiptRuleSet,
    console: consoleOptions,
  })
  .strict()
  .superRefine((cfg, ctx) => {
    if (cfg.maxRounds !== undefined && cfg.maxToolTurns !== undefined && cfg.maxRounds !== cfg.maxToolTurns)
      ctx.addIssue({
        code: "custom",
        path: ["maxToolTurns"],
        message: `maxToolTurns is maxRounds' former name and says ${cfg.maxToolTurns}, maxRounds ${cfg.maxRounds}: keep maxRounds only`,
      });
    const seen = new Set<string>();
    cfg.domains.forEach((d, i) => {
      if (seen.has(d))
        ctx.addIssue({ code: "custom", path: ["domains", i], message: `domain ${d} is listed twice` });
      seen.add(d);
    });
    const ids = new Set<string>();
    cfg.models.forEach((m, i) => {
      if (ids.has(m.id))
        ctx.addIssue({
          code: "custom",
          path: ["models", i, "id"],
          message: `model id ${m.id} is used twice`,
        });
      ids.add(m.id);
      // An outside API is outside the operator's boundary by definition: calling it `internal` would let
      // record content and restricted classes flow to it (G13).
      if (m.provider === "anthropic" && m.egress === "internal") {
        ctx.addIssue({
          code: "custom",
          path: ["models", i, "egress"],
          message: 'the Anthropic API is an outside service: set "egress": "external"',
        });
      }
      // Bedrock serves Claude 3.7 and every later Claude only through inference profiles: a plain foundation-model
      // id is refused at invoke time ("on-demand throughput isn't supported"), so refuse it here, naming the fix.
      if (m.provider === "bedrock" && NEEDS_INFERENCE_PROFILE.test(m.modelId)) {
        ctx.addIssue({
          code: "custom",
          path: ["models", i, "modelId"],
          message: `Bedrock invokes ${m.modelId} only through an inference profile: use its profile id, e.g. "us.${m.modelId}" (also eu., apac., global.), or a profile ARN`,
        });
      }
      if (m.provider === "openai-compatible" && m.egress === "internal" && !isPrivateBaseUrl(m.baseUrl)) {
        ctx.addIssue({
          code: "custom",
          path: ["models", i, "egress"],
          message: `${m.baseUrl} is a public endpoint: set "egress": "external" (internal is for servers inside your boundary)`,
        });
      }
    });
    if (cfg.defaultModel !== undefined && !ids.has(cfg.defaultModel)) {
      ctx.addIssue({
        code: "custom",
        path: ["defaultModel"],
        message: `no model with id ${cfg.defaultModel} in models`,
      });
    }
  });

export type DeploymentConfig = z.infer<typeof deploymentConfig>;
export type AttachmentLimits = DeploymentConfig["attachments"];
export type Budgets = DeploymentConfig["budgets"];

/** Claude 3.7 and every later Claude (Sonnet, Opus, Haiku 4 and up), by foundation-model id without a profile prefix. */
const NEEDS_INFERENCE_PROFILE = /^anthropic\.claude-(3-7-|(opus|sonnet|haiku)-([4-9]|\d{2}))/;

/** Loopback, RFC 1918, link-local names and single-label/.internal/.local hosts count as inside the boundary. */
function isPrivateBaseUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || !host.includes(".") || /\.(internal|local|lan|home\.arpa)$/.test(host))
    return true;
  if (/^127\.|^10\.|^192\.168\.|^172\.(1[6-9]|2\d|3[01])\./.test(host)) return true;
  return host === "::1" || /^f[cd][0-9a-f]{2}:/i.test(host);
}
