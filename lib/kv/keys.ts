/**
 * Every Deno KV key toolgate uses is built here, so the key space is readable in one place.
 * Records live under their entity name; `<entity>_by_<field>` indexes hold ids, never copies.
 */

/** A user record by id. */
export const userKey = (id: string) => ["users", id] as const;
/** Index: lower-cased email → user id. */
export const userByEmailKey = (email: string) => ["users_by_email", email] as const;

/** A dashboard session by the SHA-256 of its id. */
export const sessionKey = (hash: string) => ["sessions", hash] as const;
/** Index: user id + session hash → true, to end every session of a user. */
export const sessionByUserKey = (userId: string, hash: string) =>
  ["sessions_by_user", userId, hash] as const;
/** Prefix of every session of one user. */
export const sessionByUserPrefix = (userId: string) => ["sessions_by_user", userId] as const;

/** A password-reset ticket by the SHA-256 of its secret. */
export const passwordResetKey = (hash: string) => ["password_resets", hash] as const;
/** Dev outbox: messages that would be mailed. */
export const outboxKey = (id: string) => ["outbox", id] as const;
/** Prefix of the outbox. */
export const outboxPrefix = () => ["outbox"] as const;

/** Failed sign-in counter for an account or an IP, in a fixed window. */
export const signInFailuresKey = (kind: "email" | "ip", subject: string, window: number) =>
  ["sign_in_failures", kind, subject, window] as const;

/** A server record by id. */
export const serverKey = (id: string) => ["servers", id] as const;
/** Prefix of every server. */
export const serverPrefix = () => ["servers"] as const;
/** Index: slug → server id. */
export const serverBySlugKey = (slug: string) => ["servers_by_slug", slug] as const;
/** Index: owner → server ids. */
export const serverByOwnerKey = (ownerId: string, serverId: string) =>
  ["servers_by_owner", ownerId, serverId] as const;
/** Prefix of the servers one user owns. */
export const serverByOwnerPrefix = (ownerId: string) => ["servers_by_owner", ownerId] as const;

/** A subscription of a user to a server. */
export const subscriptionKey = (userId: string, serverId: string) =>
  ["subscriptions", userId, serverId] as const;
/** Prefix of one user's subscriptions. */
export const subscriptionPrefix = (userId: string) => ["subscriptions", userId] as const;

/** An API token record by id. */
export const tokenKey = (id: string) => ["tokens", id] as const;
/** Index: SHA-256 of the current secret → token id. */
export const tokenByHashKey = (hash: string) => ["tokens_by_hash", hash] as const;
/** Index: user + creation order → token id (newest first listing). */
export const tokenByUserKey = (userId: string, createdMs: number, id: string) =>
  ["tokens_by_user", userId, createdMs, id] as const;
/** Prefix of one user's tokens. */
export const tokenByUserPrefix = (userId: string) => ["tokens_by_user", userId] as const;

/** A security-log entry of a user, ordered by time. */
export const auditKey = (userId: string, at: number, id: string) =>
  ["audit", userId, at, id] as const;
/** Prefix of one user's security log. */
export const auditPrefix = (userId: string) => ["audit", userId] as const;

/** An entry of the change feed that keeps every instance's caches fresh. */
export const changeKey = (at: number, id: string) => ["changes", at, id] as const;
/** Prefix of the change feed. */
export const changePrefix = () => ["changes"] as const;

/** Marker that the demo platform was seeded. */
export const seedMarkerKey = () => ["meta", "demo_seeded"] as const;

/** When a token last authenticated: a KvU64 of Unix ms, raised with `max()` by every instance. */
export const tokenLastUsedKey = (id: string) => ["token_last_used", id] as const;

/** A gateway MCP session by its id (expires when idle). */
export const mcpSessionKey = (id: string) => ["mcp_sessions", id] as const;

/** A rate-limit counter (KvU64) of one user on one server in one window. */
export const rateLimitKey = (
  windowStart: number,
  window: string,
  serverId: string,
  userId: string,
) => ["rate_limits", windowStart, window, serverId, userId] as const;
/** Prefix of every rate-limit counter (ordered by window start, for sweeping). */
export const rateLimitPrefix = () => ["rate_limits"] as const;

/** The key pair toolgate signs upstream identity assertions with. */
export const identityKeyKey = () => ["meta", "identity_key"] as const;
