/**
 * The change feed that keeps every instance's in-memory caches fresh (DESIGN 6).
 *
 * Every write that a cache could hold a stale copy of adds a feed entry in the same `atomic()`.
 * The writing instance applies its own entries right after the commit; every instance polls the
 * feed every `pollMs` (≤ 100 ms) and applies entries it has not seen. Applying an entry only
 * drops cache entries, so seeing one twice is harmless.
 */
import { changeKey, changePrefix } from "./keys.ts";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";

/** What changed; listeners drop what they cached about it. */
export type Change =
  | { kind: "token"; hash: string }
  | { kind: "user_tokens"; user_id: string }
  | { kind: "server"; id: string; slug: string }
  | { kind: "subscription"; user_id: string; server_id: string }
  | { kind: "mcp_session"; id: string };

/** How long feed entries live in KV; instances look this far back when they poll. */
const ENTRY_TTL_MS = 60_000;
const LOOKBACK_MS = 10_000;

/** Records, commits and distributes cache-invalidating changes. */
export class ChangeFeed {
  #listeners = new Set<(c: Change) => void>();
  #seen = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #polling = false;

  constructor(private kv: Deno.Kv, private clock: Clock = systemClock) {}

  /** Adds feed entries for `changes` to `op`, commits it, and applies them here when it lands. */
  async commit(
    op: Deno.AtomicOperation,
    changes: Change[],
  ): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const at = this.clock.now();
    const ids: string[] = [];
    for (const change of changes) {
      const id = crypto.randomUUID();
      ids.push(id);
      op.set(changeKey(at, id), change, { expireIn: ENTRY_TTL_MS });
    }
    const res = await op.commit();
    if (res.ok) {
      for (const id of ids) this.#seen.set(id, at);
      for (const change of changes) this.#emit(change);
    }
    return res;
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: (c: Change) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts polling the feed for other instances' changes. */
  start(pollMs = 50): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.poll(), pollMs);
  }

  /** Stops polling. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Reads recent feed entries once and applies the unseen ones. */
  async poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const since = this.clock.now() - LOOKBACK_MS;
      const iter = this.kv.list<Change>({
        start: [...changePrefix(), since],
        end: [...changePrefix(), Number.MAX_SAFE_INTEGER],
      });
      for await (const entry of iter) {
        const id = entry.key[2] as string;
        if (this.#seen.has(id)) continue;
        this.#seen.set(id, entry.key[1] as number);
        this.#emit(entry.value);
      }
      for (const [id, at] of this.#seen) if (at < since) this.#seen.delete(id);
    } catch {
      // KV closed or briefly unavailable: the next poll tries again.
    } finally {
      this.#polling = false;
    }
  }

  #emit(change: Change): void {
    for (const l of this.#listeners) {
      try {
        l(change);
      } catch {
        // A listener's failure must not stop the others.
      }
    }
  }
}
