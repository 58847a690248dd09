/**
 * A small in-memory read-through cache for the MCP hot path (DESIGN 6): values are loaded from KV
 * on a miss (concurrent misses share one load), kept for at most `maxAgeMs`, dropped when the
 * change feed says they changed, and the oldest entries are evicted beyond `maxEntries`.
 */
import type { Clock } from "../clock.ts";

/** Options of a MemoCache. */
export interface MemoCacheOptions {
  /** Upper bound on how long an entry is trusted without a change-feed entry (a safety net). */
  maxAgeMs: number;
  /** Most entries kept; the oldest inserted go first. */
  maxEntries: number;
}

/** A read-through cache keyed by string; `load` runs on a miss. */
export class MemoCache<V> {
  #entries = new Map<string, { value: V; at: number }>();
  #loading = new Map<string, Promise<V>>();

  constructor(
    private clock: Clock,
    private opts: MemoCacheOptions,
    private load: (key: string) => Promise<V>,
  ) {}

  /** The cached value when fresh, else undefined (never loads). */
  peek(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined) return undefined;
    if (this.clock.now() - hit.at > this.opts.maxAgeMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /** The value for `key`: from memory when fresh, else loaded once and remembered. */
  get(key: string): V | Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const promise: Promise<V> = this.load(key).then((value) => {
      // A change that arrived while loading dropped this load: its value may be stale.
      if (this.#loading.get(key) === promise) this.set(key, value);
      return value;
    }).finally(() => {
      if (this.#loading.get(key) === promise) this.#loading.delete(key);
    });
    this.#loading.set(key, promise);
    return promise;
  }

  /** Remembers `value` for `key` (e.g. right after writing it). */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, at: this.clock.now() });
    if (this.#entries.size > this.opts.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  /** Forgets `key`, including a load in flight (its result will not be kept). */
  invalidate(key: string): void {
    this.#entries.delete(key);
    this.#loading.delete(key);
  }

  /** Forgets every key that `match` accepts. */
  invalidateWhere(match: (key: string) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (match(key)) this.#entries.delete(key);
    for (const key of [...this.#loading.keys()]) if (match(key)) this.#loading.delete(key);
  }

  /** Number of cached entries. */
  get size(): number {
    return this.#entries.size;
  }
}
