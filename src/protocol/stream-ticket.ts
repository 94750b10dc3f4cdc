import { z } from "zod";
import type { OperatorScope } from "./http";

/** A stream ticket: lets a browser's EventSource follow one session's history without a header. */

/** How long a ticket can be redeemed. */
export const STREAM_TICKET_TTL_MS = 60_000;

export const streamTicketSchema = z
  .object({
    ok: z.literal(true),
    ticket: z.string().describe("Opaque, single use."),
    url: z.string().describe("The history SSE URL with ?ticket= (relative to the service origin)."),
    expiresAt: z.number().describe("Epoch ms; the ticket must be redeemed before then."),
  })
  .meta({ id: "StreamTicket" });

/** What a stream ticket lets its holder do: follow one session with the issuing token's scopes. */
export type StreamTicketGrant = { key: string; scopes: OperatorScope[]; tokenId?: string };
