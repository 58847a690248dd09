/**
 * API token records in Deno KV.
 *
 * Keys: `tokens/<id>` → TokenRecord; `tokens_by_hash/<sha256 of secret>` → id;
 * `tokens_by_user/<user>/<created ms>/<id>` → id (newest-first listing);
 * `token_last_used/<id>` → Unix ms of the last authentication.
 * Every key of a token expires (KV `expireIn`) 90 days after the token does, so expired tokens
 * stay listed as expired for a while and then disappear. A revoked token keeps its record (with
 * `revoked_at`) and hash index for 90 days so a lookup can say "revoked", but leaves the user's
 * listing at once.
 */
import type { AppDeps } from "../context.ts";
import {
  tokenByHashKey,
  tokenByUserKey,
  tokenByUserPrefix,
  tokenKey,
  tokenLastUsedKey,
} from "../kv/keys.ts";
import { addAudit, type RequestOrigin } from "../audit/log.ts";
import type { Change } from "../kv/change_feed.ts";

/** A stored API token. The secret itself is never stored; `hash` is its SHA-256. */
export interface TokenRecord {
  id: string;
  user_id: string;
  name: string;
  hash: string;
  prefix: string;
  server_ids: string[];
  allowed_ips: string[] | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** How long revoked or expired records are kept so lookups can tell why a secret fails. */
export const REVOKED_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** Most keys one `kv.getMany` accepts. */
const GET_MANY_MAX = 10;

/** How long the keys of `rec` live from `now`: until 90 days after it expires. */
export function keyLifetime(rec: TokenRecord, now: number): number {
  return Math.max(Date.parse(rec.expires_at) - now, 0) + REVOKED_RETENTION_MS;
}

/** Adds the writes that store `rec` (record, hash index, user listing) to `op`. */
export function addPut(op: Deno.AtomicOperation, rec: TokenRecord, now: number): void {
  const expireIn = keyLifetime(rec, now);
  op.set(tokenKey(rec.id), rec, { expireIn })
    .set(tokenByHashKey(rec.hash), rec.id, { expireIn })
    .set(tokenByUserKey(rec.user_id, Date.parse(rec.created_at), rec.id), rec.id, { expireIn });
}

/** Adds the writes that revoke `rec` to `op` and returns the feed changes to publish. */
export function addRevoke(op: Deno.AtomicOperation, rec: TokenRecord, now: number): Change[] {
  const revoked: TokenRecord = { ...rec, revoked_at: new Date(now).toISOString() };
  op.set(tokenKey(rec.id), revoked, { expireIn: REVOKED_RETENTION_MS })
    .set(tokenByHashKey(rec.hash), rec.id, { expireIn: REVOKED_RETENTION_MS })
    .delete(tokenByUserKey(rec.user_id, Date.parse(rec.created_at), rec.id))
    .delete(tokenLastUsedKey(rec.id));
  return [{ kind: "token", hash: rec.hash }];
}

/** The record whose secret hashes to `hash`, or null; two reads, whatever the number of tokens. */
export async function getTokenByHash(kv: Deno.Kv, hash: string): Promise<TokenRecord | null> {
  const id = (await kv.get<string>(tokenByHashKey(hash))).value;
  if (!id) return null;
  const rec = (await kv.get<TokenRecord>(tokenKey(id))).value;
  // An index left behind by a rotation that raced this read: the record no longer matches.
  return rec && rec.hash === hash ? rec : null;
}

/** `kv.getMany` over any number of keys, in chunks it accepts; absent entries have null values. */
export async function getManyChunked<T>(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const out: Deno.KvEntryMaybe<T>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_MAX) {
    out.push(...await kv.getMany<T[]>(keys.slice(i, i + GET_MANY_MAX)));
  }
  return out;
}

/** Revokes every live token of a user (password change/reset); returns how many. */
export async function revokeAllUserTokens(
  deps: AppDeps,
  userId: string,
  origin: RequestOrigin,
  reason: "password_changed" | "password_reset",
): Promise<number> {
  let revoked = 0;
  for (let attempt = 0; attempt < 10; attempt++) {
    const ids: string[] = [];
    for await (const e of deps.kv.list<string>({ prefix: tokenByUserPrefix(userId) })) {
      ids.push(e.value);
    }
    if (ids.length === 0) break;
    for (let i = 0; i < ids.length; i += GET_MANY_MAX) {
      const chunk = ids.slice(i, i + GET_MANY_MAX);
      const entries = await getManyChunked<TokenRecord>(deps.kv, chunk.map(tokenKey));
      const now = deps.clock.now();
      const op = deps.kv.atomic();
      const changes: Change[] = [{ kind: "user_tokens", user_id: userId }];
      let n = 0;
      for (const e of entries) {
        if (!e.value || e.value.revoked_at) continue;
        op.check(e);
        changes.push(...addRevoke(op, e.value, now));
        n++;
      }
      if (n === 0) continue;
      const res = await deps.changes.commit(op, changes);
      if (res.ok) revoked += n;
    }
  }
  if (revoked > 0) {
    await addAudit(deps.kv.atomic(), userId, deps.clock.now(), "tokens_auto_revoked", origin, {
      reason,
      count: revoked,
    }).commit();
  }
  return revoked;
}
