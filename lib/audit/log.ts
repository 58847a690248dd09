/** The security log each user can read: who did what to their account and tokens, from where. */
import { auditKey, auditPrefix } from "../kv/keys.ts";
import { newId } from "../ids.ts";

/** Audit entries are kept this long (KV expiry). */
export const AUDIT_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** The kinds of event recorded. */
export type AuditEvent =
  | "sign_in"
  | "sign_in_failed"
  | "sign_out"
  | "password_changed"
  | "password_reset"
  | "token_created"
  | "token_rotated"
  | "token_edited"
  | "token_revoked"
  | "tokens_auto_revoked";

/** Where a request came from, for the log. */
export interface RequestOrigin {
  ip: string | null;
  user_agent: string | null;
}

/** One log entry as stored and answered. */
export interface AuditEntry extends RequestOrigin {
  id: string;
  event: AuditEvent;
  at: string;
  /** Non-secret details: token id and name, count of tokens revoked… */
  details: Record<string, unknown>;
}

/** Adds the `set` of an audit entry to an atomic operation (so it lands with the change). */
export function addAudit(
  op: Deno.AtomicOperation,
  userId: string,
  now: number,
  event: AuditEvent,
  origin: RequestOrigin,
  details: Record<string, unknown> = {},
): Deno.AtomicOperation {
  const id = newId();
  const entry: AuditEntry = {
    id,
    event,
    at: new Date(now).toISOString(),
    ip: origin.ip,
    user_agent: origin.user_agent?.slice(0, 300) ?? null,
    details,
  };
  return op.set(auditKey(userId, now, id), entry, { expireIn: AUDIT_RETENTION_MS });
}

/** Writes one audit entry on its own. */
export async function recordAudit(
  kv: Deno.Kv,
  userId: string,
  now: number,
  event: AuditEvent,
  origin: RequestOrigin,
  details: Record<string, unknown> = {},
): Promise<void> {
  await addAudit(kv.atomic(), userId, now, event, origin, details).commit();
}

/** The user's log, newest first, paginated by an opaque cursor. */
export async function listAudit(
  kv: Deno.Kv,
  userId: string,
  opts: { limit?: number; cursor?: string } = {},
): Promise<{ entries: AuditEntry[]; cursor: string | null }> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const iter = kv.list<AuditEntry>({ prefix: auditPrefix(userId) }, {
    reverse: true,
    limit,
    cursor: opts.cursor || undefined,
  });
  const entries: AuditEntry[] = [];
  try {
    for await (const e of iter) entries.push(e.value);
  } catch {
    throw new RangeError("Invalid cursor");
  }
  return { entries, cursor: entries.length === limit ? iter.cursor : null };
}
