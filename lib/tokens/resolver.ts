/**
 * The API-token lookup of the MCP hot path: secret → token record or why not, from memory.
 *
 * 1. Format and checksum are checked offline (no KV) — look-alikes are "malformed".
 * 2. The SHA-256 of the secret is looked up in a bounded LRU cache (100 000 tokens by default).
 *    A cached record is re-classified on every call with the clock, so expiry is exact to the
 *    millisecond even from cache.
 * 3. On a miss: two KV reads (`tokens_by_hash` → `tokens/<id>`), concurrent misses for one hash
 *    share them. Unknown hashes are cached for 5 s (bounded too), so a flood of random
 *    well-formed secrets costs one read pair per secret per 5 s.
 * 4. Every token change (create, edit, rotate, revoke, password change) arrives on the change
 *    feed and drops the cached entries for that hash (or user); a read that raced a change is
 *    not cached.
 *
 * A rotated-away secret resolves to "unknown": rotation deletes its hash index and we keep no
 * tombstone (both answer 401; a tombstone would only change the message). Revoked tokens keep
 * their index for 90 days, so their secret resolves to "revoked".
 *
 * Cost per call is a hash and a Map lookup whatever the number of stored tokens; no KV write.
 */
import type { AppDeps } from "../context.ts";
import type { Change } from "../kv/change_feed.ts";
import { hashSecret, isWellFormedSecret } from "./secret.ts";
import { getTokenByHash, type TokenRecord } from "./store.ts";
import { classifyToken, type TokenLookup } from "./lookup.ts";
import { LruMap } from "./lru.ts";
import { LastUseRecorder } from "./last_used.ts";

export type { TokenLookup } from "./lookup.ts";

/** Tuning of a resolver; the defaults suit production. */
export interface ResolverOptions {
  /** Most tokens kept in memory. */
  capacity?: number;
  /** Most unknown hashes kept in memory. */
  negativeCapacity?: number;
  /** How long an unknown hash stays "unknown" without asking KV again. */
  negativeTtlMs?: number;
  /** How often last uses are written to KV. */
  flushIntervalMs?: number;
}

/** A cached token with what every request asks of it worked out once. */
interface Known {
  token: TokenRecord;
  /** `expires_at` in ms; NaN never happens for stored records, and would read as expired. */
  expiresAt: number;
  /** The answer while active (shared, never mutated). */
  active: TokenLookup;
}

function known(token: TokenRecord): Known {
  return { token, expiresAt: Date.parse(token.expires_at), active: { ok: true, token } };
}

/** Like classifyToken, from a cached entry: no date parsing, no allocation. */
function classifyKnown(k: Known, now: number): TokenLookup {
  if (k.token.revoked_at) return REVOKED;
  if (!(k.expiresAt > now)) return EXPIRED;
  return k.active;
}
const REVOKED: TokenLookup = { ok: false, reason: "revoked" };
const EXPIRED: TokenLookup = { ok: false, reason: "expired" };
const UNKNOWN: TokenLookup = { ok: false, reason: "unknown" };

/** Resolves API-token secrets from an in-memory cache kept fresh by the change feed. */
export class TokenResolver {
  #deps: AppDeps;
  #known: LruMap<string, Known>;
  #unknown: LruMap<string, number>;
  #negativeTtlMs: number;
  #inflight = new Map<string, Promise<TokenRecord | null>>();
  /** Bumped by every token change; a KV read that spans a bump is not cached. */
  #epoch = 0;
  #lastUse: LastUseRecorder;

  /** Subscribes to `deps.changes` so token changes drop cached entries on this instance. */
  constructor(deps: AppDeps, opts: ResolverOptions = {}) {
    this.#deps = deps;
    this.#known = new LruMap(opts.capacity ?? 100_000);
    this.#unknown = new LruMap(opts.negativeCapacity ?? 100_000);
    this.#negativeTtlMs = opts.negativeTtlMs ?? 5_000;
    this.#lastUse = new LastUseRecorder(deps, opts.flushIntervalMs);
    deps.changes.subscribe((c) => this.#apply(c));
  }

  /** The token a secret belongs to, or why it cannot be used; never writes KV. */
  async resolve(secret: string): Promise<TokenLookup> {
    if (!isWellFormedSecret(secret)) return { ok: false, reason: "malformed" };
    const hash = hashSecret(secret);
    const now = this.#deps.clock.now();
    const cached = this.#known.get(hash);
    if (cached) return classifyKnown(cached, now);
    const unknownUntil = this.#unknown.get(hash);
    if (unknownUntil !== undefined) {
      if (now < unknownUntil) return UNKNOWN;
      this.#unknown.delete(hash);
    }
    return classifyToken(await this.#load(hash), this.#deps.clock.now());
  }

  /**
   * The answer for a secret when memory alone can give it (cached token or fresh unknown hash),
   * else undefined: the synchronous fast path of `resolve`. Only well-formed secrets are ever
   * cached, so a caller may peek before checking the format (a malformed secret yields undefined).
   */
  peek(secret: string): TokenLookup | undefined {
    const hash = hashSecret(secret);
    const now = this.#deps.clock.now();
    const cached = this.#known.get(hash);
    if (cached) return classifyKnown(cached, now);
    const unknownUntil = this.#unknown.get(hash);
    if (unknownUntil !== undefined && now < unknownUntil) return UNKNOWN;
    return undefined;
  }

  /** Notes that a token authenticated; written to KV by the next flush (O(1), no I/O). */
  markUsed(tokenId: string): void {
    this.#lastUse.note(tokenId);
  }

  /** Writes the noted uses to KV now. */
  flush(): Promise<void> {
    return this.#lastUse.flush();
  }

  /** Starts the once-a-minute flush timer. */
  start(): void {
    this.#lastUse.start();
  }

  /** Stops the flush timer (call `flush()` first to keep the last uses). */
  stop(): void {
    this.#lastUse.stop();
  }

  /** Number of tokens and unknown hashes in memory (for tests and metrics). */
  get cacheSize(): { known: number; unknown: number } {
    return { known: this.#known.size, unknown: this.#unknown.size };
  }

  #load(hash: string): Promise<TokenRecord | null> {
    let p = this.#inflight.get(hash);
    if (p) return p;
    const epoch = this.#epoch;
    p = getTokenByHash(this.#deps.kv, hash).then((rec) => {
      if (epoch === this.#epoch) {
        if (rec) this.#known.set(hash, known(rec));
        else this.#unknown.set(hash, this.#deps.clock.now() + this.#negativeTtlMs);
      }
      return rec;
    });
    const mine = p;
    this.#inflight.set(hash, mine);
    mine.finally(() => {
      if (this.#inflight.get(hash) === mine) this.#inflight.delete(hash);
    }).catch(() => {});
    return mine;
  }

  #apply(c: Change): void {
    if (c.kind === "token") {
      this.#epoch++;
      this.#known.delete(c.hash);
      this.#unknown.delete(c.hash);
      this.#inflight.delete(c.hash);
    } else if (c.kind === "user_tokens") {
      this.#epoch++;
      this.#known.deleteWhere((k) => k.token.user_id === c.user_id);
    }
  }
}
