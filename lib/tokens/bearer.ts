/** `Authorization: Bearer svc_…` on the JSON API: the token itself as the caller. */
import type { AppDeps } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { bearerToken } from "../http/bearer_token.ts";
import { failureMessage, lookupSecret, type TokenFailure } from "./lookup.ts";
import { ipAllowed } from "./allowlist.ts";
import type { TokenRecord } from "./store.ts";

/** The 401 for an API token that cannot be used, with RFC 6750's WWW-Authenticate. */
export function tokenUnauthorized(reason: TokenFailure | "not_bearer"): HttpError {
  const message = reason === "not_bearer"
    ? 'The Authorization header must be "Bearer <API token>"'
    : failureMessage(reason);
  return new HttpError("unauthorized", message, undefined, {
    "www-authenticate": reason === "not_bearer"
      ? 'Bearer realm="toolgate"'
      : 'Bearer realm="toolgate", error="invalid_token"',
  });
}

/**
 * Authenticates an `Authorization` header holding an API token, reading KV directly (always
 * fresh): 401 when it is not a usable token, 403 `ip_not_allowed` when `ip` is outside its
 * allowlist.
 */
export async function authenticateBearer(
  deps: AppDeps,
  header: string,
  ip: string | null,
): Promise<TokenRecord> {
  const secret = bearerToken(header);
  if (secret === null) throw tokenUnauthorized("not_bearer");
  const found = await lookupSecret(deps.kv, secret, deps.clock.now());
  if (!found.ok) throw tokenUnauthorized(found.reason);
  if (!ipAllowed(found.token, ip)) throw new HttpError("ip_not_allowed");
  return found.token;
}
