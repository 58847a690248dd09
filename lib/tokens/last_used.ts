/**
 * `last_used_at` without a KV write on the request path: uses are noted in memory and written in
 * batches by a timer, at most once per interval (a minute) per token.
 *
 * Each flush `set`s `token_last_used/<id>` to the latest use this instance saw (expiring 180 days
 * later: 90 days of lifetime plus 90 of retention). With several instances the stored value is the
 * one flushed last, so it may trail the true last use by up to one interval: fine for a "last used"
 * date, and it needs no read or check.
 */
import type { AppDeps } from "../context.ts";
import { tokenLastUsedKey } from "../kv/keys.ts";
import { REVOKED_RETENTION_MS } from "./store.ts";
import { DAY_MS } from "./validate.ts";

/** How often pending uses are written. */
export const LAST_USED_FLUSH_MS = 60_000;
const KEY_TTL_MS = 90 * DAY_MS + REVOKED_RETENTION_MS;
const BATCH = 500;

/** Notes token uses in memory and flushes them to KV in batches. */
export class LastUseRecorder {
  #pending = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private deps: AppDeps, private intervalMs = LAST_USED_FLUSH_MS) {}

  /** Notes that `tokenId` authenticated now; O(1), no I/O. */
  note(tokenId: string): void {
    this.#pending.set(tokenId, this.deps.clock.now());
  }

  /** Number of tokens with an unwritten use. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Writes every pending use, in atomics of up to 500; failed batches stay pending. */
  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const uses = [...this.#pending];
    this.#pending.clear();
    for (let i = 0; i < uses.length; i += BATCH) {
      const batch = uses.slice(i, i + BATCH);
      const op = this.deps.kv.atomic();
      for (const [id, at] of batch) op.set(tokenLastUsedKey(id), at, { expireIn: KEY_TTL_MS });
      try {
        await op.commit();
      } catch (err) {
        for (const [id, at] of batch) {
          if ((this.#pending.get(id) ?? 0) < at) this.#pending.set(id, at);
        }
        this.deps.log(`[tokens] last-use flush failed, will retry: ${(err as Error).message}`);
      }
    }
  }

  /** Starts the flush timer (it does not keep the process alive). */
  start(): void {
    if (this.#timer !== undefined) return;
    const timer = setInterval(() => void this.flush(), this.intervalMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Stops the timer; call `flush()` first to keep the last minute of uses. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
