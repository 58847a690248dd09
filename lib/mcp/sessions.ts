/**
 * Gateway MCP sessions (SPEC 3.2, DESIGN 5.2): created at `initialize`, bound to the caller, the
 * server and the resolved version, with the upstream's own session id kept behind ours. They live
 * in KV with an idle expiry, so any instance can serve any request, and are cached in memory:
 * a session never changes after creation except for its idle deadline (moved at most every
 * `touchEveryMs`, without a feed entry) and its deletion (a feed entry drops every cached copy).
 */
import type { AppDeps } from "../context.ts";
import { mcpSessionKey } from "../kv/keys.ts";
import { randomToken } from "../ids.ts";
import type { CredentialKind } from "./credentials.ts";
import { MemoCache } from "./memo_cache.ts";

/** A stored gateway MCP session. */
export interface McpSession {
  id: string;
  user_id: string;
  credential_kind: CredentialKind;
  server_id: string;
  version: string;
  /** The upstream's `Mcp-Session-Id`, or null when the upstream is stateless. */
  upstream_session_id: string | null;
  created_at: string;
  /** Unix ms after which the session has ended unless used again. */
  idle_until: number;
}

type Cached = { session: McpSession; versionstamp: string } | null;

/** Options of the session store. */
export interface SessionOptions {
  /** A session ends after this long without a request (default 30 min). */
  idleMs: number;
  /** The idle deadline is pushed back in KV at most this often (default 5 min). */
  touchEveryMs: number;
}

const DEFAULTS: SessionOptions = { idleMs: 30 * 60_000, touchEveryMs: 5 * 60_000 };

/** Creates, finds, keeps alive and ends gateway MCP sessions. */
export class SessionStore {
  #cache: MemoCache<Cached>;
  #opts: SessionOptions;

  constructor(private deps: AppDeps, opts: Partial<SessionOptions> = {}) {
    this.#opts = { ...DEFAULTS, ...opts };
    this.#cache = new MemoCache(
      deps.clock,
      { maxAgeMs: this.#opts.idleMs, maxEntries: 50_000 },
      async (id) => {
        const entry = await deps.kv.get<McpSession>(mcpSessionKey(id));
        return entry.value ? { session: entry.value, versionstamp: entry.versionstamp! } : null;
      },
    );
    deps.changes.subscribe((c) => {
      if (c.kind === "mcp_session") this.#cache.invalidate(c.id);
    });
  }

  /** Stores a new session and returns it (its id is random visible ASCII). */
  async create(input: Omit<McpSession, "id" | "created_at" | "idle_until">): Promise<McpSession> {
    const now = this.deps.clock.now();
    const session: McpSession = {
      ...input,
      id: randomToken(24),
      created_at: new Date(now).toISOString(),
      idle_until: now + this.#opts.idleMs,
    };
    const key = mcpSessionKey(session.id);
    const res = await this.deps.kv.atomic().check({ key, versionstamp: null })
      .set(key, session, { expireIn: this.#opts.idleMs }).commit();
    if (!res.ok) throw new Error("Cannot create MCP session: id collision");
    this.#cache.set(session.id, { session, versionstamp: res.versionstamp });
    return session;
  }

  /** The live session with this id, or null when unknown or idle too long. Keeps it alive. */
  async find(id: string): Promise<McpSession | null> {
    if (id.length === 0 || id.length > 200) return null;
    let found = await this.#cache.get(id);
    const now = this.deps.clock.now();
    if (found && found.session.idle_until <= now) {
      // Another instance may have kept it alive since we cached it.
      this.#cache.invalidate(id);
      found = await this.#cache.get(id);
    }
    if (!found || found.session.idle_until <= now) return null;
    if (found.session.idle_until - now < this.#opts.idleMs - this.#opts.touchEveryMs) {
      return this.#touch(found, now);
    }
    return found.session;
  }

  /** Ends a session (every instance forgets it within one feed poll). */
  async end(id: string): Promise<void> {
    const key = mcpSessionKey(id);
    await this.deps.changes.commit(this.deps.kv.atomic().delete(key), [
      { kind: "mcp_session", id },
    ]);
  }

  /** Pushes the idle deadline back: in memory at once, in KV in the background. */
  #touch(found: NonNullable<Cached>, now: number): McpSession {
    const session = { ...found.session, idle_until: now + this.#opts.idleMs };
    const cached = { session, versionstamp: found.versionstamp };
    this.#cache.set(session.id, cached);
    const key = mcpSessionKey(session.id);
    this.deps.kv.atomic().check({ key, versionstamp: found.versionstamp })
      .set(key, session, { expireIn: this.#opts.idleMs }).commit()
      .then((res) => {
        if (res.ok) cached.versionstamp = res.versionstamp;
        else this.#cache.invalidate(session.id); // ended or touched elsewhere: re-read
      }, () => this.#cache.invalidate(session.id));
    return session;
  }
}
