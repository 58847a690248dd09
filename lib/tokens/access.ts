/** Who may read or change a token: its owner's session, or the token itself by Bearer. */
import type { AppDeps } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { tokenKey } from "../kv/keys.ts";
import { tokenUnauthorized } from "./bearer.ts";
import { classifyToken } from "./lookup.ts";
import type { TokenRecord } from "./store.ts";
import { isTokenId } from "./validate.ts";

/** The caller of a token operation. */
export type Actor =
  | { kind: "session"; userId: string }
  | { kind: "bearer"; token: TokenRecord };

/** What is being done, for messages and the security log. */
export type TokenVerb = "view" | "edit" | "rotate" | "revoke";

/** The user an actor acts for. */
export const actorUserId = (a: Actor): string => a.kind === "session" ? a.userId : a.token.user_id;

/**
 * Reads token `id` for `actor` and checks it may `verb` it: 404 for an id that is not the user's
 * (existence is not leaked); Bearer: 403 for another token, 401 once its own secret stopped
 * working (rotated, revoked, expired); session: 410 for a revoked token, and for an expired one
 * unless `allowExpired`.
 */
export async function loadForActor(
  deps: AppDeps,
  actor: Actor,
  id: string,
  verb: TokenVerb,
  opts: { allowExpired?: boolean } = {},
): Promise<Deno.KvEntry<TokenRecord>> {
  if (actor.kind === "bearer" && actor.token.id !== id) {
    throw new HttpError("forbidden", `An API token can only ${verb} itself`);
  }
  const notFound = new HttpError("not_found", "Token not found");
  if (!isTokenId(id)) throw notFound;
  const entry = await deps.kv.get<TokenRecord>(tokenKey(id));
  const rec = entry.value;
  if (!rec || rec.user_id !== actorUserId(actor)) throw notFound;
  const state = classifyToken(rec, deps.clock.now());
  if (actor.kind === "bearer") {
    if (rec.hash !== actor.token.hash) throw tokenUnauthorized("unknown");
    if (!state.ok) throw tokenUnauthorized(state.reason);
  } else if (!state.ok && state.reason === "revoked") {
    throw new HttpError("gone", `Cannot ${verb} token: it was revoked`);
  } else if (!state.ok && state.reason === "expired" && !opts.allowExpired) {
    throw new HttpError("gone", `Cannot ${verb} token: it expired`);
  }
  return entry as Deno.KvEntry<TokenRecord>;
}
