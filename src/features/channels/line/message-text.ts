import { z } from "zod";
import type { EnvelopeLocation } from "../inbound-envelope";
import type { LineMessage } from "./events";
import { lineMediaRefs, lineMediaText } from "./media-download";

/**
 * The text a LINE message brings to its turn, as OpenClaw's LINE plugin (2026.9.5,
 * `extractMessageText`) writes it: a text message's text; a sticker as
 * `[Sent a sticker: <its text, else up to 3 keywords>]` (`[Sent a sticker]` with neither); a
 * location as `📍 <lat>, <lon>` (six decimals), its title and address going to the model's
 * `Location` block instead (OpenClaw keeps labels a sender chose out of the inline text); a file
 * LINE holds as its description (media-download.ts). Empty: not a turn. Pure.
 */

const stickerSchema = z.looseObject({
  text: z.string().optional(),
  keywords: z.array(z.unknown()).optional(),
});
const locationSchema = z.looseObject({
  latitude: z.number().finite(),
  longitude: z.number().finite(),
  title: z.string().optional(),
  address: z.string().optional(),
});

export function lineMessageText(message: LineMessage | undefined): string {
  if (!message) return "";
  if (message.type === "text") return message.text ?? "";
  if (message.type === "sticker") return stickerText(message);
  const location = lineLocation(message);
  if (location) return `📍 ${location.latitude.toFixed(6)}, ${location.longitude.toFixed(6)}`;
  return lineMediaText(lineMediaRefs(message));
}

/** A location message's place for the envelope (`source` "place" when it is named, else "pin"). */
export function lineLocation(message: LineMessage | undefined): EnvelopeLocation | undefined {
  if (message?.type !== "location") return undefined;
  const parsed = locationSchema.safeParse(message);
  if (!parsed.success) return undefined;
  const { latitude, longitude } = parsed.data;
  const name = nonBlank(parsed.data.title);
  const address = nonBlank(parsed.data.address);
  return {
    latitude,
    longitude,
    source: name || address ? "place" : "pin",
    ...(name ? { name } : {}),
    ...(address ? { address } : {}),
  };
}

function stickerText(message: LineMessage): string {
  const sticker = stickerSchema.safeParse(message);
  const said = sticker.success ? nonBlank(sticker.data.text) : undefined;
  const keywords = sticker.success
    ? (sticker.data.keywords ?? []).flatMap((k) => (typeof k === "string" && k.trim() ? [k.trim()] : [])).slice(0, 3)
    : [];
  const description = said ?? keywords.join(", ");
  return description ? `[Sent a sticker: ${description}]` : "[Sent a sticker]";
}

/** A string LINE sent with something in it (a name, a title, a sticker's text), as sent; else undefined. */
export function nonBlank(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}
