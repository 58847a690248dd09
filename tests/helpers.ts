/**
 * Test factories: deps over a `:memory:` KV, an app, and signed-in users. Every test opens its
 * own KV and closes it with `using`-style cleanup through `close()`.
 */
import { loadConfig } from "../lib/config.ts";
import type { Config } from "../lib/config.ts";
import type { AppDeps } from "../lib/context.ts";
import { ChangeFeed } from "../lib/kv/change_feed.ts";
import { type Clock, ManualClock } from "../lib/clock.ts";
import { createApp } from "../lib/http/app.ts";
import { createUser, type User } from "../lib/accounts/users.ts";
import { createServer, deployVersion, type ServerRecord } from "../lib/servers/servers.ts";

/** Low PBKDF2 cost for tests only (production is 600 000). */
export const TEST_ITERATIONS = 1000;

/** A test environment: deps, app, and a close() that releases everything. */
export interface TestEnv {
  deps: AppDeps;
  kv: Deno.Kv;
  clock: ManualClock | Clock;
  app: ReturnType<typeof createApp>;
  log: string[];
  close(): void;
}

/** Builds deps over a fresh `:memory:` KV with a manual clock (unless `realClock`). */
export async function testEnv(
  opts: { env?: Record<string, string>; realClock?: boolean; kv?: Deno.Kv } = {},
): Promise<TestEnv> {
  const kv = opts.kv ?? await Deno.openKv(":memory:");
  const config: Config = loadConfig({ SEED_DEMO: "false", ...opts.env });
  const clock = opts.realClock ? { now: () => Date.now() } : new ManualClock(Date.now());
  const log: string[] = [];
  const deps: AppDeps = {
    kv,
    config,
    clock,
    passwordIterations: TEST_ITERATIONS,
    changes: new ChangeFeed(kv, clock),
    log: (line) => log.push(line),
  };
  const app = createApp(deps);
  return { deps, kv, clock, app, log, close: () => opts.kv ? undefined : kv.close() };
}

let counter = 0;
/** A fresh user with a unique email; password `password123`. */
export async function randomUser(deps: AppDeps, password = "password123"): Promise<User> {
  return await createUser(deps, `user${Date.now()}-${++counter}@example.com`, password);
}

/** A signed-in browser-like client for `app.request()`: cookie + CSRF header on every call. */
export interface Client {
  user: User;
  cookie: string;
  csrf: string;
  /** Sends a request with the session cookie and CSRF token; `json` bodies are serialized. */
  request(method: string, path: string, json?: unknown, headers?: HeadersInit): Promise<Response>;
}

/** Signs a new (or given) user in through `POST /api/session`. */
export async function signedIn(env: TestEnv, user?: User): Promise<Client> {
  const u = user ?? await randomUser(env.deps);
  const res = await env.app.request("/api/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: u.email, password: "password123" }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const { csrf_token } = await res.json();
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  return {
    user: u,
    cookie,
    csrf: csrf_token,
    request(method, path, json, headers) {
      const h = new Headers(headers);
      h.set("cookie", cookie);
      h.set("x-csrf-token", csrf_token);
      if (json !== undefined) h.set("content-type", "application/json");
      return Promise.resolve(env.app.request(path, {
        method,
        headers: h,
        body: json === undefined ? undefined : JSON.stringify(json),
      }));
    },
  };
}

/** A server owned by `owner` with the given versions deployed in order. */
export async function serverWith(
  deps: AppDeps,
  ownerId: string,
  versions: string[] = ["1.0.0"],
  upstream = "http://127.0.0.1:9/mcp",
): Promise<ServerRecord> {
  const slug = `srv-${crypto.randomUUID().slice(0, 8)}`;
  let server = await createServer(deps, ownerId, { slug, name: `Server ${slug}` });
  for (const version of versions) {
    server = await deployVersion(deps, slug, ownerId, { version, upstream_url: upstream });
  }
  return server;
}

/** A free TCP port on loopback. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
