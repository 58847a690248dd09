/** The servers a page shows: the user's own and subscribed ones, and the whole catalog. */
import type { AppDeps } from "../context.ts";
import { getServer, listAllServers, ownedServerIds, type ServerRecord } from "./servers.ts";
import { subscribedServerIds } from "./subscriptions.ts";
import { serverView } from "./views.ts";

/** A server as lists show it (the API's `serverView`). */
export type ServerSummary = ReturnType<typeof serverView>;

/** Servers the user owns or subscribes to (those a token may be scoped to), by slug. */
export async function userServers(deps: AppDeps, userId: string): Promise<ServerSummary[]> {
  const [owned, subscribed] = await Promise.all([
    ownedServerIds(deps.kv, userId),
    subscribedServerIds(deps.kv, userId),
  ]);
  const subs = new Set(subscribed);
  const records = await Promise.all(
    [...new Set([...owned, ...subscribed])].map((id) => getServer(deps.kv, id)),
  );
  return records.filter((s): s is ServerRecord => s !== null)
    .sort((a, b) => a.slug.localeCompare(b.slug))
    .map((s) => serverView(deps.config.platformUrl, s, userId, subs.has(s.id)));
}

/** Every server, with the user's relation to it. */
export async function catalog(deps: AppDeps, userId: string): Promise<ServerSummary[]> {
  const [all, subscribed] = await Promise.all([
    listAllServers(deps.kv),
    subscribedServerIds(deps.kv, userId),
  ]);
  const subs = new Set(subscribed);
  return all.map((s) => serverView(deps.config.platformUrl, s, userId, subs.has(s.id)));
}
