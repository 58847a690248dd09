/**
 * Per-user, per-server rate limits in fixed windows (minute or hour), counted in memory and
 * shared through KV in batches (DESIGN 6): no KV access on the request path.
 *
 * Every `flushMs` each instance adds what it admitted since the last flush to the window's KV
 * counter (one atomic `sum` per key per flush, many keys per `atomic()`), then reads the counters
 * back, learning what every other instance admitted. A request is admitted while
 * `known total + admitted here since the last flush < limit`.
 *
 * Overshoot bound: instances learn of each other's requests only at flushes, so with N instances
 * sharing a KV a window admits at most `limit + (N − 1) × a` requests, where `a` is the most one
 * instance admits for that user and server in one flush interval plus one KV round trip
 * (≈ 100–150 ms by default). One instance alone never overshoots. Rejected requests are not
 * counted. Counters of ended windows are swept from KV every few minutes.
 */
import type { Clock } from "../clock.ts";
import type { RateLimit } from "../servers/servers.ts";
import { rateLimitKey, rateLimitPrefix } from "../kv/keys.ts";

/** Why a request was refused: the SPEC 7 429 `error.data`. */
export interface RateLimitExceeded {
  limit: number;
  /** Unix seconds when the window ends. */
  resetAt: number;
  /** Seconds until then (at least 1). */
  retryAfter: number;
  windowType: "minute" | "hour";
}

const WINDOW_MS = { minute: 60_000, hour: 3_600_000 } as const;
const SUMS_PER_ATOMIC = 100;
const KEYS_PER_GET = 10;
const SWEEP_EVERY_MS = 5 * 60_000;

interface Counter {
  key: Deno.KvKey;
  serverId: string;
  userId: string;
  windowMs: number;
  windowEnd: number;
  /** Total of every instance as of the last read-back. */
  known: number;
  /** Admitted here and being flushed right now. */
  flushing: number;
  /** Admitted here since the last flush started. */
  pending: number;
}

/** Counts requests per (user, server, window) and says when one goes over its server's limit. */
export class RateLimiter {
  #counters = new Map<string, Counter>();
  /** serverId → userId → the counter of the pair's current window (an index into #counters). */
  #current = new Map<string, Map<string, Counter>>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #flushing: Promise<void> | null = null;
  #lastSweep = 0;

  constructor(private kv: Deno.Kv, private clock: Clock, private flushMs = 100) {}

  /** Counts one request; returns null when admitted, else why not. Never touches KV. */
  hit(userId: string, serverId: string, rule: RateLimit): RateLimitExceeded | null {
    const now = this.clock.now();
    const windowMs = WINDOW_MS[rule.window];
    // Fast path: this pair's counter for the current window, found without building a key.
    let c = this.#current.get(serverId)?.get(userId);
    if (
      c === undefined || c.windowMs !== windowMs || now >= c.windowEnd ||
      now < c.windowEnd - windowMs
    ) {
      c = this.#counter(userId, serverId, rule.window, now);
    }
    if (c.known + c.flushing + c.pending >= rule.limit) {
      const retryAfter = Math.max(1, Math.ceil((c.windowEnd - now) / 1000));
      return {
        limit: rule.limit,
        resetAt: Math.ceil(c.windowEnd / 1000),
        retryAfter,
        windowType: rule.window,
      };
    }
    c.pending++;
    return null;
  }

  /** The counter of a window, created (and indexed for the fast path) when new. */
  #counter(userId: string, serverId: string, window: RateLimit["window"], now: number): Counter {
    const windowMs = WINDOW_MS[window];
    const start = now - (now % windowMs);
    const id = `${start} ${window} ${serverId} ${userId}`;
    let c = this.#counters.get(id);
    if (!c) {
      c = {
        key: rateLimitKey(start, window, serverId, userId),
        serverId,
        userId,
        windowMs,
        windowEnd: start + windowMs,
        known: 0,
        flushing: 0,
        pending: 0,
      };
      this.#counters.set(id, c);
      this.#startTimer();
    }
    let byUser = this.#current.get(serverId);
    if (!byUser) this.#current.set(serverId, byUser = new Map());
    byUser.set(userId, c);
    return c;
  }

  /** Adds pending counts to KV and reads every active counter back; one flush at a time. */
  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  /** Stops the flush timer (a last flush is the caller's choice). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #startTimer(): void {
    if (this.#timer !== undefined) return;
    const timer = setInterval(() => void this.flush(), this.flushMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Drops `c` from the fast-path index (if it is still the pair's current counter). */
  #forget(c: Counter): void {
    const byUser = this.#current.get(c.serverId);
    if (byUser?.get(c.userId) !== c) return;
    byUser.delete(c.userId);
    if (byUser.size === 0) this.#current.delete(c.serverId);
  }

  async #flush(): Promise<void> {
    const now = this.clock.now();
    const active: Counter[] = [];
    for (const [id, c] of this.#counters) {
      if (c.windowEnd <= now && c.pending === 0) {
        this.#counters.delete(id);
        this.#forget(c);
      } else active.push(c);
    }
    if (active.length === 0) {
      this.stop();
      return;
    }
    const dirty = active.filter((c) => c.pending > 0);
    for (const c of dirty) {
      c.flushing = c.pending;
      c.pending = 0;
    }
    try {
      for (let i = 0; i < dirty.length; i += SUMS_PER_ATOMIC) {
        const op = this.kv.atomic();
        for (const c of dirty.slice(i, i + SUMS_PER_ATOMIC)) op.sum(c.key, BigInt(c.flushing));
        const res = await op.commit();
        if (!res.ok) throw new Error("rate-limit flush failed");
        // Our share is in KV now; until the read-back, count it as known.
        for (const c of dirty.slice(i, i + SUMS_PER_ATOMIC)) {
          c.known += c.flushing;
          c.flushing = 0;
        }
      }
    } catch {
      // KV unavailable or closed: keep the unflushed counts for the next flush.
      for (const c of dirty) {
        c.pending += c.flushing;
        c.flushing = 0;
      }
      return;
    }
    await this.#readBack(active).catch(() => {});
    if (now - this.#lastSweep > SWEEP_EVERY_MS) {
      this.#lastSweep = now;
      await this.#sweep(now).catch(() => {});
    }
  }

  async #readBack(active: Counter[]): Promise<void> {
    const reads: Promise<void>[] = [];
    for (let i = 0; i < active.length; i += KEYS_PER_GET) {
      const batch = active.slice(i, i + KEYS_PER_GET);
      reads.push(
        this.kv.getMany<Deno.KvU64[]>(batch.map((c) => c.key)).then((entries) => {
          entries.forEach((e, j) => {
            if (e.value) batch[j].known = Math.max(batch[j].known, Number(e.value.value));
          });
        }),
      );
    }
    await Promise.all(reads);
  }

  /** Deletes counters of windows that ended over an hour ago. */
  async #sweep(now: number): Promise<void> {
    const iter = this.kv.list({
      start: [...rateLimitPrefix(), 0],
      end: [...rateLimitPrefix(), now - 2 * WINDOW_MS.hour],
    }, { limit: 500 });
    let op = this.kv.atomic();
    let n = 0;
    for await (const e of iter) {
      op.delete(e.key);
      if (++n % SUMS_PER_ATOMIC === 0) {
        await op.commit();
        op = this.kv.atomic();
      }
    }
    if (n % SUMS_PER_ATOMIC !== 0) await op.commit();
  }
}
