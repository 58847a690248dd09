/** Checks of user input for token create and edit; bad input is a RangeError or HttpError. */
import { HttpError } from "../http/errors.ts";
import { normalizeAllowlist } from "../net/ip_allowlist.ts";

/** The lifetimes a token may be given, in days (SPEC 2.1). */
export const EXPIRY_DAYS = [7, 30, 90] as const;

/** One day in milliseconds. */
export const DAY_MS = 24 * 3600 * 1000;

/** Most servers one token may be scoped to. */
export const MAX_SCOPES = 100;

/** Fields a token edit may carry. */
export const EDITABLE_FIELDS = ["name", "expires_in_days", "allowed_ips"] as const;

/** Fields fixed at creation; an edit naming one is told to create a new token instead. */
export const FIXED_FIELDS = ["scopes", "server_ids", "id", "token", "prefix"] as const;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `id` has the shape of a token id (a lower-case UUID). */
export const isTokenId = (id: string): boolean => UUID_RE.test(id);

/** A trimmed name of 1–100 characters without control characters. */
export function checkTokenName(raw: string): string {
  const name = raw.trim();
  const len = [...name].length;
  if (len < 1 || len > 100) throw new RangeError("Token name must be 1 to 100 characters");
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    throw new RangeError("Token name must not contain control characters");
  }
  return name;
}

/** 7, 30 or 90; anything else is a RangeError. */
export function checkExpiresInDays(days: number): number {
  if (!(EXPIRY_DAYS as readonly number[]).includes(days)) {
    throw new RangeError("expires_in_days must be 7, 30 or 90");
  }
  return days;
}

/** The expiry `days` from `now`, as an ISO timestamp (never more than 90 days away). */
export const expiryFrom = (now: number, days: number): string =>
  new Date(now + checkExpiresInDays(days) * DAY_MS).toISOString();

/** Deduplicated, non-empty list of server ids (at most 100). */
export function checkServerIdList(ids: string[]): string[] {
  const unique = [...new Set(ids.map((id) => id.trim()))];
  if (unique.length === 0 || unique.includes("")) {
    throw new RangeError("server_ids must name at least one server");
  }
  if (unique.length > MAX_SCOPES) {
    throw new RangeError(`server_ids may name at most ${MAX_SCOPES} servers`);
  }
  return unique;
}

/** The normalised allowlist (null when none); every kind of bad entry is a RangeError. */
export function checkAllowedIps(raw: unknown): string[] | null {
  try {
    return normalizeAllowlist(raw);
  } catch (err) {
    if (err instanceof TypeError) throw new RangeError(err.message);
    throw err;
  }
}

const quoted = (fields: string[]) =>
  fields.slice(0, 10).map((f) => JSON.stringify(f.slice(0, 50))).join(", ") +
  (fields.length > 10 ? ` and ${fields.length - 10} more` : "");

/**
 * Refuses an edit body naming fields other than name, expires_in_days and allowed_ips. Fixed
 * fields (scopes, id, token…) get a sentence saying a new token must be created; every offending
 * field is named.
 */
export function checkEditFields(body: unknown): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  const keys = Object.keys(body);
  const fixed = keys.filter((k) => (FIXED_FIELDS as readonly string[]).includes(k));
  if (fixed.length > 0) {
    throw new HttpError(
      "unknown_field",
      `Cannot change ${quoted(fixed)}: a token's scopes are fixed at creation; ` +
        "create a new token with the servers you need instead",
      { field: fixed[0], fields: fixed },
    );
  }
  const unknown = keys.filter((k) => !(EDITABLE_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new HttpError(
      "unknown_field",
      `Unknown field${unknown.length > 1 ? "s" : ""} ${quoted(unknown)}: ` +
        "only name, expires_in_days and allowed_ips can be edited",
      { field: unknown[0], fields: unknown },
    );
  }
}
