/** Shared set-up for token tests: a signed-in owner of a server, and Bearer requests. */
import assert from "node:assert/strict";
import { type Client, serverWith, signedIn, type TestEnv } from "../../helpers.ts";
import type { ServerRecord } from "../../../lib/servers/servers.ts";
import type { TokenWithSecret } from "../../../lib/tokens/views.ts";
import type { ManualClock } from "../../../lib/clock.ts";
import type { TokenRecord } from "../../../lib/tokens/store.ts";

/** A signed-in user who owns one server. */
export interface Owner {
  client: Client;
  server: ServerRecord;
  /** Creates a token through the API (defaults: this server, 30 days) and returns the 201 body. */
  createToken(extra?: Record<string, unknown>): Promise<TokenWithSecret>;
}

/** Signs a fresh user in and gives them a server. */
export async function owner(env: TestEnv): Promise<Owner> {
  const client = await signedIn(env);
  const server = await serverWith(env.deps, client.user.id);
  return {
    client,
    server,
    async createToken(extra = {}) {
      const res = await client.request("POST", "/api/tokens", {
        name: "ci",
        server_ids: [server.id],
        expires_in_days: 30,
        ...extra,
      });
      assert.equal(res.status, 201, await res.clone().text());
      return await res.json();
    },
  };
}

/** A request authenticated only by an API token, from `ip` (the socket address). */
export function bearer(
  env: TestEnv,
  method: string,
  path: string,
  secret: string,
  opts: { json?: unknown; ip?: string; headers?: HeadersInit } = {},
): Promise<Response> {
  const headers = new Headers(opts.headers);
  headers.set("authorization", `Bearer ${secret}`);
  if (opts.json !== undefined) headers.set("content-type", "application/json");
  return Promise.resolve(env.app.request(path, {
    method,
    headers,
    body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
  }, { remoteAddr: { hostname: opts.ip ?? "203.0.113.7" } }));
}

/** The test env's clock, which is manual unless `realClock` was asked for. */
export const manual = (env: TestEnv) => env.clock as ManualClock;

/** Reads an error body and checks its shape: `{error: {code, message}}`. */
export async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const body = await res.json();
  assert.equal(typeof body.error?.code, "string", JSON.stringify(body));
  assert.equal(typeof body.error?.message, "string", JSON.stringify(body));
  return body.error;
}

/** Checks the token key space: every hash index points at a record with that hash, every record
 * (revoked ones too) has its hash index, and live records are listed for their user. */
export async function assertIndexConsistent(kv: Deno.Kv): Promise<void> {
  const { tokenByHashKey, tokenByUserKey, tokenKey } = await import("../../../lib/kv/keys.ts");
  for await (const e of kv.list<string>({ prefix: ["tokens_by_hash"] })) {
    const rec = (await kv.get<TokenRecord>(tokenKey(e.value))).value;
    assert.ok(rec, `index ${String(e.key[1]).slice(0, 8)}… points at a missing record`);
    assert.equal(rec.hash, e.key[1], `index ${String(e.key[1]).slice(0, 8)}… is stale`);
  }
  for await (const e of kv.list<TokenRecord>({ prefix: ["tokens"] })) {
    const rec = e.value;
    assert.equal((await kv.get(tokenByHashKey(rec.hash))).value, rec.id, "record without index");
    const listed = await kv.get(tokenByUserKey(rec.user_id, Date.parse(rec.created_at), rec.id));
    assert.equal(listed.value !== null, rec.revoked_at === null, "listing out of step");
  }
}

/** Deps whose KV counts `get`/`getMany` calls and can hold reads until released. */
export function countingKv(kv: Deno.Kv): {
  kv: Deno.Kv;
  reads: () => number;
  hold(): () => void;
} {
  let reads = 0;
  let gate: Promise<void> | null = null;
  const proxy = new Proxy(kv, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      if (prop === "get" || prop === "getMany") {
        return async (...args: unknown[]) => {
          reads++;
          if (gate) await gate;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return {
    kv: proxy,
    reads: () => reads,
    hold() {
      const { promise, resolve } = Promise.withResolvers<void>();
      gate = promise;
      return () => {
        gate = null;
        resolve();
      };
    },
  };
}
