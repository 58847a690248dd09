/** Subscriptions of users to servers (billing itself is out of scope). */
import type { AppDeps } from "../context.ts";
import { subscriptionKey, subscriptionPrefix } from "../kv/keys.ts";

/** A stored subscription. */
export interface Subscription {
  user_id: string;
  server_id: string;
  created_at: string;
}

/** Subscribes; returns false when the subscription already existed. */
export async function subscribe(deps: AppDeps, userId: string, serverId: string): Promise<boolean> {
  const sub: Subscription = {
    user_id: userId,
    server_id: serverId,
    created_at: new Date(deps.clock.now()).toISOString(),
  };
  const op = deps.kv.atomic()
    .check({ key: subscriptionKey(userId, serverId), versionstamp: null })
    .set(subscriptionKey(userId, serverId), sub);
  const res = await deps.changes.commit(op, [
    { kind: "subscription", user_id: userId, server_id: serverId },
  ]);
  return res.ok;
}

/** Cancels; returns false when there was none. */
export async function cancelSubscription(
  deps: AppDeps,
  userId: string,
  serverId: string,
): Promise<boolean> {
  const cur = await deps.kv.get(subscriptionKey(userId, serverId));
  if (!cur.value) return false;
  const op = deps.kv.atomic().check(cur).delete(subscriptionKey(userId, serverId));
  const res = await deps.changes.commit(op, [
    { kind: "subscription", user_id: userId, server_id: serverId },
  ]);
  return res.ok;
}

/** Whether the user has an active subscription. */
export async function isSubscribed(
  kv: Deno.Kv,
  userId: string,
  serverId: string,
): Promise<boolean> {
  return (await kv.get(subscriptionKey(userId, serverId))).value !== null;
}

/** Ids of the servers a user subscribes to. */
export async function subscribedServerIds(kv: Deno.Kv, userId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of kv.list<Subscription>({ prefix: subscriptionPrefix(userId) })) {
    ids.push(e.value.server_id);
  }
  return ids;
}
