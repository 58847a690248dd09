import assert from "node:assert/strict";
import { randomUser, serverWith, testEnv } from "../../helpers.ts";
import {
  cancelSubscription,
  isSubscribed,
  subscribe,
  subscribedServerIds,
} from "../../../lib/servers/subscriptions.ts";
import type { Change } from "../../../lib/kv/change_feed.ts";

Deno.test("subscribe() and cancelSubscription() are idempotent and publish feed entries", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const u = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id);
    const changes: Change[] = [];
    env.deps.changes.subscribe((c) => changes.push(c));
    assert.equal(await isSubscribed(env.kv, u.id, s.id), false);
    assert.equal(await subscribe(env.deps, u.id, s.id), true);
    assert.equal(await subscribe(env.deps, u.id, s.id), false);
    assert.equal(await isSubscribed(env.kv, u.id, s.id), true);
    assert.deepEqual(await subscribedServerIds(env.kv, u.id), [s.id]);
    assert.deepEqual(await subscribedServerIds(env.kv, owner.id), []);
    assert.equal(await cancelSubscription(env.deps, u.id, s.id), true);
    assert.equal(await cancelSubscription(env.deps, u.id, s.id), false);
    assert.equal(await isSubscribed(env.kv, u.id, s.id), false);
    assert.deepEqual(changes, [
      { kind: "subscription", user_id: u.id, server_id: s.id },
      { kind: "subscription", user_id: u.id, server_id: s.id },
    ]);
  } finally {
    env.close();
  }
});

Deno.test("subscribe() under 20 concurrent calls creates one subscription", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const u = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => subscribe(env.deps, u.id, s.id)),
    );
    assert.equal(results.filter(Boolean).length, 1);
    assert.deepEqual(await subscribedServerIds(env.kv, u.id), [s.id]);
  } finally {
    env.close();
  }
});
