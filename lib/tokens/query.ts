/** Reading a user's tokens: newest-first pages and single tokens, as API views (no secrets). */
import type { AppDeps } from "../context.ts";
import { tokenByUserPrefix, tokenKey } from "../kv/keys.ts";
import { getManyChunked, type TokenRecord } from "./store.ts";
import { type TokenView, tokenView, tokenViews } from "./views.ts";
import { type Actor, loadForActor } from "./access.ts";

/** Default and largest page size of {@link listTokens}. */
export const LIST_LIMIT = { default: 50, max: 200 } as const;

/** One page of the user's live and expired tokens, newest first; `cursor` is null on the last. */
export async function listTokens(
  deps: AppDeps,
  userId: string,
  opts: { limit?: number; cursor?: string } = {},
): Promise<{ tokens: TokenView[]; cursor: string | null }> {
  const limit = opts.limit ?? LIST_LIMIT.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT.max) {
    throw new RangeError(`limit must be a whole number from 1 to ${LIST_LIMIT.max}`);
  }
  const iter = deps.kv.list<string>({ prefix: tokenByUserPrefix(userId) }, {
    reverse: true,
    limit,
    cursor: opts.cursor || undefined,
  });
  const ids: string[] = [];
  try {
    for await (const e of iter) ids.push(e.value);
  } catch {
    throw new RangeError("Invalid cursor");
  }
  const entries = await getManyChunked<TokenRecord>(deps.kv, ids.map(tokenKey));
  const records = entries.flatMap((e) => e.value && !e.value.revoked_at ? [e.value] : []);
  return {
    tokens: await tokenViews(deps.kv, records),
    cursor: ids.length === limit ? iter.cursor : null,
  };
}

/** One token the actor may see (its owner's session, or itself by Bearer), as a view. */
export async function getTokenView(deps: AppDeps, actor: Actor, id: string): Promise<TokenView> {
  const entry = await loadForActor(deps, actor, id, "view", { allowExpired: true });
  return await tokenView(deps.kv, entry.value);
}
