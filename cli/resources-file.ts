import * as z from "zod";
import { TABLE_KEYS, type TableKey } from "../shared/config/index.ts";

/**
 * The stack's PosternResources output saved as JSON (`--resources FILE`). In its own module so that a local
 * command never loads zod for it.
 */
export const resourcesFileSchema = z
  .object({
    region: z.string().min(1).optional(),
    tables: z.object(
      Object.fromEntries(TABLE_KEYS.map((k) => [k, z.string().min(1)])) as Record<TableKey, z.ZodString>,
    ),
    bucket: z.string().min(1),
    queues: z.object({
      verify: z.string().min(1),
      agentStep: z.string().min(1),
      outbound: z.string().min(1),
      // Optional: resource files saved from stacks before signed events still load (no events emitted or tested).
      events: z.string().min(1).optional(),
      eventsDeadLetter: z.string().min(1).optional(),
    }),
    // Read by `postern doctor` only; optional so resource files saved from older stacks still load.
    alarmTopicArn: z.string().min(1).optional(),
    roles: z
      .object({ outbound: z.string().min(1), agentStep: z.string().min(1).optional() })
      .strict()
      .optional(),
    agentStep: z
      .object({ functionName: z.string().min(1), reservedConcurrency: z.number().int().min(0).optional() })
      .strict()
      .optional(),
    configurationSet: z.string().min(1).optional(),
    notificationTopicArn: z.string().min(1).optional(),
    schedule: z
      .object({ name: z.string().min(1), group: z.string().min(1) })
      .strict()
      .optional(),
    console: z
      .object({
        functionName: z.string().min(1),
        userPoolId: z.string().min(1),
        reservedConcurrency: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
