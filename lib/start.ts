/**
 * Starts a whole toolgate: KV, change feed, demo upstreams and seed (when configured), the app
 * and its HTTP server. Used by main.ts and by tests that need a real server.
 */
import type { Config } from "./config.ts";
import type { AppDeps } from "./context.ts";
import { openKv } from "./kv/open.ts";
import { ChangeFeed } from "./kv/change_feed.ts";
import { systemClock } from "./clock.ts";
import { PASSWORD_ITERATIONS } from "./accounts/passwords.ts";
import { createApp } from "./http/app.ts";
import { closeGatewayFor } from "./mcp/gateway.ts";
import { startDemoUpstream } from "./demo/upstream_mcp.ts";
import { DEMO_VERSIONS, LABS_VERSIONS, seedDemo, type SeedResult } from "./demo/seed.ts";

/** A running toolgate. */
export interface Running {
  deps: AppDeps;
  /** The address it listens on, e.g. `http://127.0.0.1:8000`. */
  listenUrl: string;
  seed: SeedResult | null;
  close(): Promise<void>;
}

/** Options beyond the config: mostly for tests. */
export interface StartOptions {
  log?: (line: string) => void;
  passwordIterations?: number;
  kv?: Deno.Kv;
}

/** Starts toolgate and returns once it listens. */
export async function startToolgate(config: Config, opts: StartOptions = {}): Promise<Running> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const kv = opts.kv ?? await openKv(config.kvPath);
  const changes = new ChangeFeed(kv);
  changes.start(50);
  const deps: AppDeps = {
    kv,
    config,
    clock: systemClock,
    passwordIterations: opts.passwordIterations ?? PASSWORD_ITERATIONS,
    changes,
    log,
  };
  const closers: (() => Promise<void>)[] = [];
  let seed: SeedResult | null = null;
  if (config.seedDemo) {
    const upstreams = new Map<string, string>();
    for (const [slug, versions] of [["demo", DEMO_VERSIONS], ["labs", LABS_VERSIONS]] as const) {
      for (const version of versions) {
        const up = await startDemoUpstream({ version, port: 0 });
        closers.push(up.close);
        upstreams.set(`${slug}@${version}`, up.url);
      }
    }
    seed = await seedDemo(deps, (slug, version) => upstreams.get(`${slug}@${version}`)!);
  }
  const app = createApp(deps);
  const ac = new AbortController();
  const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve(
    { port: config.port, hostname: config.hostname, signal: ac.signal, onListen: resolve },
    (req, info) => app.fetch(req, { remoteAddr: info.remoteAddr as Deno.NetAddr }),
  );
  const addr = await listening;
  const host = addr.hostname === "0.0.0.0" || addr.hostname === "::" ? "127.0.0.1" : addr.hostname;
  return {
    deps,
    listenUrl: `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`,
    seed,
    async close() {
      ac.abort();
      await server.finished;
      await closeGatewayFor(deps);
      changes.stop();
      for (const close of closers) await close();
      if (!opts.kv) kv.close();
    },
  };
}
