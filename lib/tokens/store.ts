/**
 * API token records in Deno KV.
 *
 * Keys: `tokens/<id>` → TokenRecord; `tokens_by_hash/<sha256 of secret>` → id;
 * `tokens_by_user/<user>/<created ms>/<id>` → id (newest-first listing). A revoked token keeps
 * its record (with `revoked_at`) and hash index for 90 days so a lookup can say "revoked", but
 * leaves the user's listing at once.
 */
import type { AppDeps } from "../context.ts";
import { tokenByHashKey, tokenByUserKey, tokenByUserPrefix, tokenKey } from "../kv/keys.ts";
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

/** How long revoked records are kept so lookups can tell "revoked" from "unknown". */
export const REVOKED_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** Adds the writes that revoke `rec` to `op` and returns the feed changes to publish. */
export function addRevoke(op: Deno.AtomicOperation, rec: TokenRecord, now: number): Change[] {
  const revoked: TokenRecord = { ...rec, revoked_at: new Date(now).toISOString() };
  op.set(tokenKey(rec.id), revoked, { expireIn: REVOKED_RETENTION_MS })
    .set(tokenByHashKey(rec.hash), rec.id, { expireIn: REVOKED_RETENTION_MS })
    .delete(tokenByUserKey(rec.user_id, Date.parse(rec.created_at), rec.id));
  return [{ kind: "token", hash: rec.hash }];
}

/** Revokes every live token of a user (password change/reset); returns how many. */
export async function revokeAllUserTokens(
  deps: AppDeps,
  userId: string,
  origin: RequestOrigin,
  reason: "password_changed" | "password_reset",
): Promise<number> {
  let revoked = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const ids: string[] = [];
    for await (const e of deps.kv.list<string>({ prefix: tokenByUserPrefix(userId) })) {
      ids.push(e.value);
    }
    if (ids.length === 0) break;
    for (let i = 0; i < ids.length; i += 50) {
      const entries = await deps.kv.getMany<TokenRecord[]>(ids.slice(i, i + 50).map(tokenKey));
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
