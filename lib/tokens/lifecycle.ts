/**
 * Token lifecycle: create, edit, rotate, revoke. Each change is one checked `atomic()` that also
 * writes its security-log entry and the change-feed entries that make every instance's cache drop
 * the old copy; a check that fails because another request changed the token meanwhile is retried.
 */
import type { AppDeps } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { tokenByHashKey } from "../kv/keys.ts";
import type { Change } from "../kv/change_feed.ts";
import { addAudit, type AuditEvent, type RequestOrigin } from "../audit/log.ts";
import { ownedServerIds } from "../servers/servers.ts";
import { subscribedServerIds } from "../servers/subscriptions.ts";
import { newId } from "../ids.ts";
import { generateSecret, hashSecret, secretPrefix } from "./secret.ts";
import { addPut, addRevoke, type TokenRecord } from "./store.ts";
import { type Actor, actorUserId, loadForActor, type TokenVerb } from "./access.ts";
import {
  checkAllowedIps,
  checkExpiresInDays,
  checkServerIdList,
  checkTokenName,
  expiryFrom,
} from "./validate.ts";

/** What a user asks for when creating a token. */
export interface CreateTokenInput {
  name: string;
  server_ids: string[];
  expires_in_days: number;
  allowed_ips?: unknown;
}

/** What an edit may change; `allowed_ips: null` clears the allowlist, absent keeps it. */
export interface EditTokenInput {
  name?: string;
  expires_in_days?: number;
  allowed_ips?: unknown;
}

/** A token together with its new secret (create, rotate). */
export interface IssuedToken {
  secret: string;
  record: TokenRecord;
}

/** Enough attempts for every one of many simultaneous writers to land in turn. */
const MAX_ATTEMPTS = 200;

const quote = (ids: string[]) => ids.slice(0, 10).map((s) => JSON.stringify(s.slice(0, 60)));

function newSecret(): { secret: string; hash: string; prefix: string } {
  const secret = generateSecret();
  return { secret, hash: hashSecret(secret), prefix: secretPrefix(secret) };
}

/** Creates a token scoped to servers the user owns or subscribes to; returns it with its secret. */
export async function createToken(
  deps: AppDeps,
  userId: string,
  input: CreateTokenInput,
  origin: RequestOrigin,
): Promise<IssuedToken> {
  const name = checkTokenName(input.name);
  const days = checkExpiresInDays(input.expires_in_days);
  const allowedIps = checkAllowedIps(input.allowed_ips);
  const serverIds = checkServerIdList(input.server_ids);
  const [owned, subscribed] = await Promise.all([
    ownedServerIds(deps.kv, userId),
    subscribedServerIds(deps.kv, userId),
  ]);
  const reachable = new Set([...owned, ...subscribed]);
  const refused = serverIds.filter((id) => !reachable.has(id));
  if (refused.length > 0) {
    throw new HttpError(
      "invalid_request",
      `A token can only access servers you own or subscribe to; not allowed: ${
        quote(refused).join(", ")
      }`,
      { server_ids: refused.slice(0, 10) },
    );
  }
  const { secret, hash, prefix } = newSecret();
  const now = deps.clock.now();
  const record: TokenRecord = {
    id: newId(),
    user_id: userId,
    name,
    hash,
    prefix,
    server_ids: serverIds,
    allowed_ips: allowedIps,
    created_at: new Date(now).toISOString(),
    expires_at: expiryFrom(now, days),
    revoked_at: null,
  };
  const op = deps.kv.atomic().check({ key: tokenByHashKey(hash), versionstamp: null });
  addPut(op, record, now);
  addAudit(op, userId, now, "token_created", origin, {
    token_id: record.id,
    name,
    prefix,
    server_ids: serverIds,
    expires_at: record.expires_at,
  });
  const res = await deps.changes.commit(op, [{ kind: "token", hash }]);
  if (!res.ok) throw new HttpError("conflict", "Cannot create token: please try again");
  return { secret, record };
}

const EVENTS: Record<Exclude<TokenVerb, "view">, AuditEvent> = {
  edit: "token_edited",
  rotate: "token_rotated",
  revoke: "token_revoked",
};

/** One step of a change: the writes for `rec` at `now`, and what they return. */
type Step<T> = (
  rec: TokenRecord,
  now: number,
  op: Deno.AtomicOperation,
) => { result: T; changes: Change[]; details: Record<string, unknown> };

/** Reads, checks access, applies `step` in one checked atomic with audit + feed; retries. */
async function change<T>(
  deps: AppDeps,
  actor: Actor,
  id: string,
  verb: Exclude<TokenVerb, "view">,
  origin: RequestOrigin,
  step: Step<T>,
  opts: { allowExpired?: boolean } = {},
): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await loadForActor(deps, actor, id, verb, opts);
    const now = deps.clock.now();
    const op = deps.kv.atomic().check(entry);
    const { result, changes, details } = step(entry.value, now, op);
    addAudit(op, actorUserId(actor), now, EVENTS[verb], origin, {
      token_id: id,
      name: entry.value.name,
      via: actor.kind,
      ...details,
    });
    if ((await deps.changes.commit(op, changes)).ok) return result;
  }
  throw new HttpError("conflict", `Cannot ${verb} token: it is being changed by other requests`);
}

/** Edits name, expiry (days from now: 7, 30 or 90) and allowlist; scopes never change. */
export function editToken(
  deps: AppDeps,
  actor: Actor,
  id: string,
  input: EditTokenInput,
  origin: RequestOrigin,
): Promise<TokenRecord> {
  const fields = Object.keys(input).filter((k) => input[k as keyof EditTokenInput] !== undefined);
  if (fields.length === 0) {
    throw new RangeError("Nothing to change: send name, expires_in_days or allowed_ips");
  }
  const name = input.name === undefined ? undefined : checkTokenName(input.name);
  const days = input.expires_in_days === undefined
    ? undefined
    : checkExpiresInDays(input.expires_in_days);
  const allowedIps = input.allowed_ips === undefined
    ? undefined
    : checkAllowedIps(input.allowed_ips);
  return change(deps, actor, id, "edit", origin, (rec, now, op) => {
    const next: TokenRecord = {
      ...rec,
      name: name ?? rec.name,
      expires_at: days === undefined ? rec.expires_at : expiryFrom(now, days),
      allowed_ips: allowedIps === undefined ? rec.allowed_ips : allowedIps,
    };
    addPut(op, next, now);
    return {
      result: next,
      changes: [{ kind: "token", hash: rec.hash }],
      details: { changed: fields, expires_at: next.expires_at, allowed_ips: next.allowed_ips },
    };
  });
}

/**
 * Replaces the secret (hash, prefix and hash index) in one checked atomic; id, name, scopes,
 * expiry and allowlist stay. The old secret stops resolving at once: its index is deleted and
 * every cache is told to drop it.
 */
export async function rotateToken(
  deps: AppDeps,
  actor: Actor,
  id: string,
  origin: RequestOrigin,
): Promise<IssuedToken> {
  const fresh = newSecret();
  const record = await change(deps, actor, id, "rotate", origin, (rec, now, op) => {
    const next: TokenRecord = { ...rec, hash: fresh.hash, prefix: fresh.prefix };
    op.check({ key: tokenByHashKey(fresh.hash), versionstamp: null })
      .delete(tokenByHashKey(rec.hash));
    addPut(op, next, now);
    return {
      result: next,
      changes: [{ kind: "token", hash: rec.hash }, { kind: "token", hash: fresh.hash }],
      details: { old_prefix: rec.prefix, prefix: fresh.prefix },
    };
  });
  return { secret: fresh.secret, record };
}

/** Revokes a token of the user for good (an expired one too); 410 when already revoked. */
export async function revokeToken(
  deps: AppDeps,
  userId: string,
  id: string,
  origin: RequestOrigin,
): Promise<void> {
  await change(deps, { kind: "session", userId }, id, "revoke", origin, (rec, now, op) => ({
    result: undefined,
    changes: addRevoke(op, rec, now),
    details: { prefix: rec.prefix },
  }), { allowExpired: true });
}
