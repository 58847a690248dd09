/** Servers (with their versions) by slug, from memory; KV only on a miss (DESIGN 6). */
import type { AppDeps } from "../context.ts";
import { getServerBySlug, type ServerRecord } from "../servers/servers.ts";
import { MemoCache } from "./memo_cache.ts";

/** Servers by slug, kept fresh by the change feed; unknown slugs are remembered too. */
export class ServerCache {
  #cache: MemoCache<ServerRecord | null>;

  constructor(deps: AppDeps) {
    this.#cache = new MemoCache(
      deps.clock,
      { maxAgeMs: 60_000, maxEntries: 10_000 },
      (slug) => getServerBySlug(deps.kv, slug),
    );
    deps.changes.subscribe((c) => {
      if (c.kind === "server") this.#cache.invalidate(c.slug);
    });
  }

  /** The server with this slug, or null when there is none. */
  bySlug(slug: string): ServerRecord | null | Promise<ServerRecord | null> {
    return this.#cache.get(slug);
  }
}
