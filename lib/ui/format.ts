/** Dates for people: relative ("in 29 days", "3 hours ago") and absolute, same on server and client. */

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "in 29 days", "2 hours ago", "just now" for `iso` relative to `now`. */
export function relativeTime(iso: string, now: number): string {
  const diff = Date.parse(iso) - now;
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) return rtf.format(Math.trunc(diff / ms), unit);
  }
  return "just now";
}

/** "Nov 22, 2025, 14:03 UTC": the exact time, for titles and logs. */
export function absoluteTime(iso: string): string {
  return new Date(iso).toLocaleString("en", {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "UTC",
  }) + " UTC";
}

/** How close a token is to its end. */
export type ExpiryState = "ok" | "soon" | "expired";

/** Soon means under 7 days left. */
export function expiryState(iso: string, now: number): ExpiryState {
  const left = Date.parse(iso) - now;
  if (left <= 0) return "expired";
  return left < 7 * 86_400_000 ? "soon" : "ok";
}
