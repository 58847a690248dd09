/** Whether a user subscribes to a server, from memory; KV only on a miss (DESIGN 6). */
import type { AppDeps } from "../context.ts";
import { isSubscribed } from "../servers/subscriptions.ts";
import { MemoCache } from "./memo_cache.ts";

/** Subscription answers by (user, server), kept fresh by the change feed. */
export class SubscriptionCache {
  #cache: MemoCache<boolean>;

  constructor(deps: AppDeps) {
    this.#cache = new MemoCache(deps.clock, { maxAgeMs: 60_000, maxEntries: 100_000 }, (key) => {
      const [userId, serverId] = key.split(" ");
      return isSubscribed(deps.kv, userId, serverId);
    });
    deps.changes.subscribe((c) => {
      if (c.kind === "subscription") this.#cache.invalidate(`${c.user_id} ${c.server_id}`);
    });
  }

  /** True when `userId` has an active subscription to `serverId`. */
  has(userId: string, serverId: string): boolean | Promise<boolean> {
    return this.#cache.get(`${userId} ${serverId}`);
  }
}
