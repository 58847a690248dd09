/**
 * The pre-MCP half of the pipeline (SPEC 7, DESIGN 1), in this order: credential (401) →
 * allowlist (403) → scope (403 -32003) → subscription (402, owners need none) → rate limit (429).
 * Every refusal is an HttpError without X-MCP-Version; nothing here touches KV on a warm cache.
 */
import { HttpError } from "../http/errors.ts";
import type { ServerRecord } from "../servers/servers.ts";
import {
  type Caller,
  type CredentialVerifier,
  type Verification,
  verifyAuthorization,
} from "./credentials.ts";
import type { RateLimiter } from "./rate_limiter.ts";
import type { SubscriptionCache } from "./subscription_cache.ts";
import { wwwAuthenticate } from "./resource_metadata.ts";

/** What admission consults. */
export interface AdmissionDeps {
  verifiers: readonly CredentialVerifier[];
  subscriptions: SubscriptionCache;
  limiter: RateLimiter;
}

/** One request as admission sees it. */
export interface AdmissionRequest {
  authorization: string | null;
  /** The client's address (called only when the credential has an allowlist). */
  clientIp(): string | null;
  server: ServerRecord;
  /** The server base URL the request came through (for WWW-Authenticate). */
  base: string;
}

/**
 * Admits the request and returns its caller, or throws the HttpError that refuses it.
 * Synchronous (no promise, no await) when every answer is in memory — the hot path.
 */
export function admit(deps: AdmissionDeps, req: AdmissionRequest): Caller | Promise<Caller> {
  const verified = verifyAuthorization(deps.verifiers, req.authorization, {
    resource: req.base,
  });
  if (verified instanceof Promise) return verified.then((v) => admitVerified(deps, req, v));
  return admitVerified(deps, req, verified);
}

function admitVerified(
  deps: AdmissionDeps,
  req: AdmissionRequest,
  verified: Verification,
): Caller | Promise<Caller> {
  if (!verified.ok) {
    const e = verified.error;
    if (e.kind !== "unauthorized") throw e;
    throw new HttpError(e.kind, e.message, e.data, {
      "www-authenticate": wwwAuthenticate(req.base),
    });
  }
  const { server } = req;
  const caller = verified.caller;
  if (caller.ipAllowed && !caller.ipAllowed(req.clientIp())) {
    const description = "Requests from this IP address are not allowed for this token";
    throw new HttpError("ip_not_allowed", description, { error: "ip_not_allowed", description });
  }
  if (caller.server_ids && !caller.server_ids.includes(server.id)) {
    throw new HttpError("forbidden", `This token is not scoped to server "${server.slug}"`);
  }
  if (server.owner_id !== caller.user_id) {
    const subscribed = deps.subscriptions.has(caller.user_id, server.id);
    if (subscribed instanceof Promise) {
      return subscribed.then((yes) => admitSubscribed(deps, server, caller, yes));
    }
    return admitSubscribed(deps, server, caller, subscribed);
  }
  return admitSubscribed(deps, server, caller, true);
}

function admitSubscribed(
  deps: AdmissionDeps,
  server: ServerRecord,
  caller: Caller,
  subscribed: boolean,
): Caller {
  if (!subscribed) {
    const description = `An active subscription to "${server.name}" (${server.slug}) is required`;
    throw new HttpError("payment_required", description, {
      error: "payment_required",
      description,
    });
  }
  const over = deps.limiter.hit(caller.user_id, server.id, server.rate_limit);
  if (over) {
    throw new HttpError(
      "rate_limited",
      `At most ${over.limit} requests per ${over.windowType}`,
      { ...over },
      { "retry-after": String(over.retryAfter) },
    );
  }
  caller.noteUse();
  return caller;
}
