/**
 * A bounded least-recently-used map: the least recently used entry goes when the capacity is
 * exceeded.
 *
 * Recency is kept by re-inserting an entry on use, but only once it has fallen out of the newest
 * half of the map: a hit on a recently used entry (the common case on the MCP hot path, where the
 * same tokens come back every request) is then a plain lookup, with no delete/insert churn in
 * the Map. Any entry used within the last `capacity / 2` insertions is therefore safe from
 * eviction, which is all an LRU promises in practice.
 */
interface Slot<V> {
  value: V;
  /** The insertion counter when the entry was last (re)inserted. */
  stamp: number;
}

export class LruMap<K, V> {
  #map = new Map<K, Slot<V>>();
  #counter = 0;
  #refreshAfter: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LRU capacity must be a positive integer (got ${capacity})`);
    }
    this.#refreshAfter = Math.max(1, capacity >> 1);
  }

  /** The value for `key`, marking it recently used. */
  get(key: K): V | undefined {
    const slot = this.#map.get(key);
    if (slot === undefined) return undefined;
    if (this.#counter - slot.stamp >= this.#refreshAfter) {
      this.#map.delete(key);
      slot.stamp = ++this.#counter;
      this.#map.set(key, slot);
    }
    return slot.value;
  }

  /** Stores `value` as most recently used, evicting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, { value, stamp: ++this.#counter });
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as K);
  }

  /** Removes `key`. */
  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  /** Removes every entry whose value matches. */
  deleteWhere(pred: (value: V) => boolean): void {
    for (const [k, slot] of this.#map) if (pred(slot.value)) this.#map.delete(k);
  }

  /** Number of entries. */
  get size(): number {
    return this.#map.size;
  }
}
