import assert from "node:assert/strict";
import { ManualClock } from "../../../lib/clock.ts";
import { ChangeFeed } from "../../../lib/kv/change_feed.ts";
import { SessionStore } from "../../../lib/mcp/sessions.ts";
import type { AppDeps } from "../../../lib/context.ts";
import { loadConfig } from "../../../lib/config.ts";

function instance(kv: Deno.Kv, clock: ManualClock): AppDeps {
  return {
    kv,
    clock,
    config: loadConfig({ SEED_DEMO: "false" }),
    passwordIterations: 1000,
    changes: new ChangeFeed(kv, clock),
    log: () => {},
  };
}

const INPUT = {
  user_id: "u1",
  credential_kind: "api_token" as const,
  server_id: "s1",
  version: "1.2.3",
  upstream_session_id: "up-1",
};

Deno.test("a session is found on another instance, kept alive by use, and ends when idle", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const one = new SessionStore(instance(kv, clock), { idleMs: 60_000, touchEveryMs: 10_000 });
  const two = new SessionStore(instance(kv, clock), { idleMs: 60_000, touchEveryMs: 10_000 });
  const s = await one.create(INPUT);
  assert.match(s.id, /^[A-Za-z0-9_-]{32}$/);
  assert.deepEqual(await two.find(s.id), s);
  clock.advance(50_000);
  const touched = await one.find(s.id); // pushes the idle deadline back (in KV too)
  assert.equal(touched?.idle_until, clock.now() + 60_000);
  await new Promise((r) => setTimeout(r, 10)); // let the touch commit
  clock.advance(30_000); // 80 s after creation: two's cached copy looks idle, KV says no
  assert.equal((await two.find(s.id))?.id, s.id);
  clock.advance(61_000);
  assert.equal(await one.find(s.id), null);
  assert.equal(await two.find(s.id), null);
  kv.close();
});

Deno.test("end() drops the session on every instance through the change feed", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const depsTwo = instance(kv, clock);
  const one = new SessionStore(instance(kv, clock));
  const two = new SessionStore(depsTwo);
  const s = await one.create(INPUT);
  assert.ok(await two.find(s.id)); // now cached on two
  await one.end(s.id);
  assert.equal(await one.find(s.id), null);
  await depsTwo.changes.poll();
  assert.equal(await two.find(s.id), null);
  assert.equal(await two.find(""), null);
  kv.close();
});
