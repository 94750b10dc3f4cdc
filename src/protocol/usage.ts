import { z } from "zod";
import { adminListQuerySchema } from "./admin";

/** Shapes of the usage views: `GET /v1/usage` (the tenant's own), `/v1/admin/tenants/<id>/usage`, `/v1/admin/usage`. */

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "a UTC date YYYY-MM-DD")
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), "not a calendar date");

export const usageRangeSchema = z.object({
  from: day.optional().describe("First UTC day (default: the first of `to`'s month)."),
  to: day.optional().describe("Last UTC day, inclusive (default: today)."),
});
export type UsageRange = z.infer<typeof usageRangeSchema>;

export const allUsageQuerySchema = usageRangeSchema.extend(adminListQuerySchema.shape);

const unitsSchema = z
  .object({
    requests: z.number().describe("Durable Object requests: RPC calls, fetches, alarms."),
    websocketMessages: z.number().describe("Incoming WebSocket messages (billed 20:1 as requests)."),
    activeMs: z.number().describe("Wall time the objects were active (billed as GB-s at 128 MB)."),
    rowsRead: z.number().describe("SQLite rows read."),
    rowsWritten: z.number().describe("SQLite rows written."),
    storedBytes: z
      .number()
      .describe(
        "Bytes the objects' SQLite databases grew by (negative: shrank); summed over all days, what they store.",
      ),
    r2ClassA: z.number().describe("R2 Class A operations (put, list) on the tenant's files."),
    r2ClassB: z.number().describe("R2 Class B operations (get, head) on the tenant's files."),
    r2StoredBytes: z
      .number()
      .describe("Bytes put into R2 minus bytes deleted; summed over all days, what the tenant keeps in R2."),
  })
  .meta({ id: "BillableUnits" });

const dayUsageSchema = z.object({
  date: z.string(),
  objects: z.record(z.string(), unitsSchema).describe("Units per Durable Object class."),
  units: unitsSchema,
  tokens: z.number().describe("Model tokens of the runs that finished that day."),
  r2StoredBytes: z.number().describe("What the tenant keeps in R2 at the day's end."),
  r2StorageUsd: z.number().describe("The day's R2 storage: its peak bytes as a 30th of a GB-month."),
  estimateUsd: z
    .number()
    .describe("The units and the day's R2 storage at Cloudflare's published prices (Worker requests not included)."),
});

const totalsSchema = z.object({
  units: unitsSchema,
  tokens: z.number(),
  r2StoredBytes: z.number().describe("What the tenant keeps in R2 at the range's last day."),
  r2StorageUsd: z.number(),
  estimateUsd: z.number(),
});

const pricesSchema = z.object({ asOf: z.string(), sources: z.array(z.string()) });

export const tenantUsageSchema = z
  .object({
    ok: z.literal(true),
    tenantId: z.string(),
    from: z.string(),
    to: z.string(),
    days: z.array(dayUsageSchema),
    totals: totalsSchema,
    prices: pricesSchema,
  })
  .meta({ id: "TenantUsage" });

export const allUsageSchema = z
  .object({
    ok: z.literal(true),
    from: z.string(),
    to: z.string(),
    tenants: z.array(
      z.object({
        tenantId: z.string(),
        days: z.array(dayUsageSchema),
        totals: totalsSchema,
      }),
    ),
    prices: pricesSchema,
    hasMore: z.boolean(),
    nextCursor: z.string().optional(),
  })
  .meta({ id: "AllTenantsUsage" });
