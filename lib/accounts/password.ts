/**
 * Password change and reset. Both revoke every API token of the user (SPEC 3.1) and end the
 * user's other sessions; a reset link is single-use and lives 30 minutes.
 */
import type { AppDeps } from "../context.ts";
import { outboxKey, passwordResetKey, userKey } from "../kv/keys.ts";
import { newId, randomToken, sha256Hex } from "../ids.ts";
import { HttpError } from "../http/errors.ts";
import { addAudit, type RequestOrigin } from "../audit/log.ts";
import { checkPasswordStrength, hashPassword, verifyPassword } from "./passwords.ts";
import { getUser, getUserByEmail, type User } from "./users.ts";
import { deleteUserSessions } from "./sessions.ts";
import { revokeAllUserTokens } from "../tokens/store.ts";

/** How long a reset link works. */
export const RESET_TTL_MS = 30 * 60 * 1000;

/** A message that would be mailed; in development it is logged and kept in KV. */
export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  body: string;
  link: string;
  created_at: string;
}

/** A stored reset ticket, keyed by the SHA-256 of the link's secret. */
interface ResetTicket {
  user_id: string;
  /** Unix ms after which the link no longer works. */
  expires_at: number;
}

/**
 * Sets a new password with the rules of a change: every API token revoked (SPEC 3.1), audited.
 * Returns how many tokens were revoked.
 */
export async function setPassword(
  deps: AppDeps,
  user: User,
  newPassword: string,
  origin: RequestOrigin,
  event: "password_changed" | "password_reset",
  extra?: (op: Deno.AtomicOperation) => void,
): Promise<number> {
  checkPasswordStrength(newPassword);
  const hash = await hashPassword(newPassword, deps.passwordIterations);
  const current = await deps.kv.get<User>(userKey(user.id));
  if (!current.value) throw new HttpError("not_found", "Account not found");
  const op = deps.kv.atomic().check(current).set(userKey(user.id), {
    ...current.value,
    password_hash: hash,
  });
  extra?.(op);
  addAudit(op, user.id, deps.clock.now(), event, origin);
  const res = await op.commit();
  if (!res.ok) throw new HttpError("conflict", "The account changed meanwhile; try again");
  return await revokeAllUserTokens(deps, user.id, origin, event);
}

/** Changes the password of a signed-in user; ends their other sessions. */
export async function changePassword(
  deps: AppDeps,
  userId: string,
  currentPassword: string,
  newPassword: string,
  keepSessionHash: string,
  origin: RequestOrigin,
): Promise<{ tokens_revoked: number }> {
  const user = await getUser(deps.kv, userId);
  if (!user) throw new HttpError("unauthorized");
  if (!(await verifyPassword(currentPassword, user.password_hash))) {
    throw new HttpError("forbidden", "The current password is wrong");
  }
  const n = await setPassword(deps, user, newPassword, origin, "password_changed");
  await deleteUserSessions(deps.kv, userId, keepSessionHash);
  return { tokens_revoked: n };
}

/** Starts a reset: writes a one-time link to the outbox when the account exists. */
export async function requestPasswordReset(deps: AppDeps, email: string): Promise<void> {
  const user = await getUserByEmail(deps.kv, email);
  if (!user) return;
  const secret = randomToken(32);
  const now = deps.clock.now();
  const link = new URL(`/reset-password?token=${secret}`, deps.config.platformUrl).href;
  const msg: OutboxMessage = {
    id: newId(),
    to: user.email,
    subject: "Reset your toolgate password",
    body: `Someone asked to reset the password of ${user.email}. ` +
      `Open this link within 30 minutes to choose a new one: ${link}\n` +
      "If it was not you, ignore this message.",
    link,
    created_at: new Date(now).toISOString(),
  };
  await deps.kv.atomic()
    .set(
      passwordResetKey(await sha256Hex(secret)),
      {
        user_id: user.id,
        expires_at: now + RESET_TTL_MS,
      } satisfies ResetTicket,
      {
        // KV expiry only cleans up; the ticket's own expires_at (on the injected clock) rules.
        expireIn: RESET_TTL_MS,
      },
    )
    .set(outboxKey(`${now}-${msg.id}`), msg, { expireIn: 7 * 24 * 3600 * 1000 })
    .commit();
  deps.log(`[outbox] to=${user.email} subject="${msg.subject}" link=${link}`);
}

/** Completes a reset with the link's token; revokes every token and session of the user. */
export async function confirmPasswordReset(
  deps: AppDeps,
  token: string,
  newPassword: string,
  origin: RequestOrigin,
): Promise<{ tokens_revoked: number }> {
  checkPasswordStrength(newPassword);
  const invalid = () =>
    new HttpError("invalid_request", "This reset link is invalid, used or expired");
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw invalid();
  const key = passwordResetKey(await sha256Hex(token));
  const ticket = await deps.kv.get<ResetTicket>(key);
  if (!ticket.value || !(ticket.value.expires_at > deps.clock.now())) throw invalid();
  const user = await getUser(deps.kv, ticket.value.user_id);
  if (!user) throw invalid();
  const n = await setPassword(deps, user, newPassword, origin, "password_reset", (op) => {
    op.check(ticket).delete(key);
  });
  await deleteUserSessions(deps.kv, user.id);
  return { tokens_revoked: n };
}
