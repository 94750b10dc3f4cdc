/** Times as OpenClaw writes them for people (its cron-style "Current time" lines), in UTC. */

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** `Thursday, November 26th, 2026 - 2:57 PM` (UTC). */
export function formatLongUtc(at: Date): string {
  const day = at.getUTCDate();
  const hours = at.getUTCHours();
  const minutes = String(at.getUTCMinutes()).padStart(2, "0");
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  return `${WEEKDAYS[at.getUTCDay()]}, ${MONTHS[at.getUTCMonth()]} ${day}${ordinal(day)}, ${at.getUTCFullYear()} - ${hour12}:${minutes} ${hours < 12 ? "AM" : "PM"}`;
}

/** `2026-11-26 14:57 UTC`. */
export function formatShortUtc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function ordinal(day: number): string {
  if (day % 100 >= 11 && day % 100 <= 13) return "th";
  return ["th", "st", "nd", "rd"][day % 10] ?? "th";
}
