/** A bounded least-recently-used map: the oldest entry goes when the capacity is exceeded. */
export class LruMap<K, V> {
  #map = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LRU capacity must be a positive integer (got ${capacity})`);
    }
  }

  /** The value for `key`, marking it most recently used. */
  get(key: K): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }

  /** Stores `value` as most recently used, evicting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as K);
  }

  /** Removes `key`. */
  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  /** Removes every entry whose value matches. */
  deleteWhere(pred: (value: V) => boolean): void {
    for (const [k, v] of this.#map) if (pred(v)) this.#map.delete(k);
  }

  /** Number of entries. */
  get size(): number {
    return this.#map.size;
  }
}
