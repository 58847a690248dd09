/**
 * Dashboard sessions: a random id in an HttpOnly cookie, stored in KV only as its SHA-256,
 * with an expiry and a CSRF token that every unsafe cookie-authenticated request must echo.
 */
import type { AppDeps } from "../context.ts";
import { sessionByUserKey, sessionByUserPrefix, sessionKey } from "../kv/keys.ts";
import { randomToken, sha256Hex } from "../ids.ts";

/** How long a session lives without use. */
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

/** A stored session (its id is never stored, only its hash is the key). */
export interface Session {
  user_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** Starts a session; returns the secret id for the cookie and the stored record. */
export async function createSession(
  deps: AppDeps,
  userId: string,
): Promise<{ id: string; session: Session }> {
  const id = randomToken(32);
  const hash = await sha256Hex(id);
  const now = deps.clock.now();
  const session: Session = {
    user_id: userId,
    csrf_token: randomToken(24),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + SESSION_TTL_MS).toISOString(),
  };
  const res = await deps.kv.atomic()
    .set(sessionKey(hash), session, { expireIn: SESSION_TTL_MS })
    .set(sessionByUserKey(userId, hash), true, { expireIn: SESSION_TTL_MS })
    .commit();
  if (!res.ok) throw new Error("Cannot create session: KV commit failed");
  return { id, session };
}

/** The session for a cookie value, or null when unknown or expired. */
export async function getSession(
  deps: AppDeps,
  id: string,
): Promise<{ hash: string; session: Session } | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(id)) return null;
  const hash = await sha256Hex(id);
  const session = (await deps.kv.get<Session>(sessionKey(hash))).value;
  if (!session || Date.parse(session.expires_at) <= deps.clock.now()) return null;
  return { hash, session };
}

/** Ends one session. */
export async function deleteSession(kv: Deno.Kv, hash: string, userId: string): Promise<void> {
  await kv.atomic().delete(sessionKey(hash)).delete(sessionByUserKey(userId, hash)).commit();
}

/** Ends every session of a user except `keepHash`; returns how many ended. */
export async function deleteUserSessions(
  kv: Deno.Kv,
  userId: string,
  keepHash?: string,
): Promise<number> {
  let n = 0;
  let op = kv.atomic();
  let inOp = 0;
  for await (const e of kv.list({ prefix: sessionByUserPrefix(userId) })) {
    const hash = e.key[2] as string;
    if (hash === keepHash) continue;
    op.delete(sessionKey(hash)).delete(e.key);
    n++;
    if (++inOp >= 400) {
      await op.commit();
      op = kv.atomic();
      inOp = 0;
    }
  }
  if (inOp) await op.commit();
  return n;
}
