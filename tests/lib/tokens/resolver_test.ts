/** TokenResolver: the MCP hot-path lookup, its cache, its invalidation and last-use flushing. */
import assert from "node:assert/strict";
import { randomUser, serverWith, type TestEnv, testEnv } from "../../helpers.ts";
import { assertIndexConsistent, countingKv, manual } from "./fixtures.ts";
import { TokenResolver } from "../../../lib/tokens/resolver.ts";
import { createToken, editToken, revokeToken, rotateToken } from "../../../lib/tokens/lifecycle.ts";
import { addPut, revokeAllUserTokens, type TokenRecord } from "../../../lib/tokens/store.ts";
import { generateSecret, hashSecret, secretPrefix } from "../../../lib/tokens/secret.ts";
import { ChangeFeed } from "../../../lib/kv/change_feed.ts";
import { tokenLastUsedKey } from "../../../lib/kv/keys.ts";
import type { AppDeps } from "../../../lib/context.ts";

const DAY = 24 * 3600 * 1000;
const origin = { ip: "192.0.2.1", user_agent: "test" };

async function withToken(env: TestEnv, days = 30) {
  const user = await randomUser(env.deps);
  const server = await serverWith(env.deps, user.id);
  const issued = await createToken(env.deps, user.id, {
    name: "t",
    server_ids: [server.id],
    expires_in_days: days,
  }, origin);
  return { user, server, ...issued, session: { kind: "session" as const, userId: user.id } };
}

/** A resolver over deps whose KV reads are counted. */
function counted(env: TestEnv) {
  const c = countingKv(env.kv);
  const deps: AppDeps = { ...env.deps, kv: c.kv };
  return { resolver: new TokenResolver(deps), ...c };
}

Deno.test("resolve() refuses look-alikes offline, without a KV read", async (t) => {
  const env = await testEnv();
  try {
    const { resolver, reads } = counted(env);
    const good = generateSecret();
    const cases: [string, string][] = [
      ["empty", ""],
      ["wrong prefix", "svd_" + good.slice(4)],
      ["too short", good.slice(0, 47)],
      ["too long", good + "0"],
      ["bad checksum", good.slice(0, 47) + (good[47] === "0" ? "1" : "0")],
      ["non-base62", good.slice(0, 20) + "-" + good.slice(21)],
      ["padded", ` ${good}`],
    ];
    for (const [name, secret] of cases) {
      await t.step(name, async () => {
        assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "malformed" });
      });
    }
    assert.equal(reads(), 0);
  } finally {
    env.close();
  }
});

Deno.test("resolve() finds a token with two reads, then serves it from memory", async () => {
  const env = await testEnv();
  try {
    const { secret, record } = await withToken(env);
    const { resolver, reads } = counted(env);
    const first = await resolver.resolve(secret);
    assert.ok(first.ok);
    assert.equal(first.token.id, record.id);
    assert.equal(reads(), 2);
    for (let i = 0; i < 100; i++) assert.ok((await resolver.resolve(secret)).ok);
    assert.equal(reads(), 2, "hits read no KV");
  } finally {
    env.close();
  }
});

Deno.test("resolve() costs the same two reads however many tokens exist", async () => {
  const env = await testEnv();
  try {
    const { user, server } = await withToken(env);
    const secrets: string[] = [];
    for (let i = 0; i < 300; i++) {
      const { secret } = await createToken(env.deps, user.id, {
        name: `t${i}`,
        server_ids: [server.id],
        expires_in_days: 7,
      }, origin);
      secrets.push(secret);
    }
    const { resolver, reads } = counted(env);
    for (const s of [secrets[0], secrets[150], secrets[299]]) {
      const before = reads();
      assert.ok((await resolver.resolve(s)).ok);
      assert.equal(reads() - before, 2);
    }
  } finally {
    env.close();
  }
});

Deno.test("resolve() shares one KV read between simultaneous misses", async () => {
  const env = await testEnv();
  try {
    const { secret } = await withToken(env);
    const { resolver, reads } = counted(env);
    const all = await Promise.all(Array.from({ length: 20 }, () => resolver.resolve(secret)));
    assert.ok(all.every((r) => r.ok));
    assert.equal(reads(), 2);
  } finally {
    env.close();
  }
});

Deno.test("resolve() answers expired at expires_at to the millisecond, even from cache", async () => {
  const env = await testEnv();
  try {
    const { secret } = await withToken(env, 7);
    const { resolver, reads } = counted(env);
    assert.ok((await resolver.resolve(secret)).ok);
    manual(env).advance(7 * DAY - 1);
    assert.ok((await resolver.resolve(secret)).ok);
    manual(env).advance(1);
    assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "expired" });
    assert.equal(reads(), 2, "decided from cache");
  } finally {
    env.close();
  }
});

Deno.test("resolve() sees revoke, rotate, edit and password change at once", async (t) => {
  const env = await testEnv();
  try {
    const { resolver } = counted(env);
    await t.step("revoke → revoked", async () => {
      const { secret, record, session } = await withToken(env);
      assert.ok((await resolver.resolve(secret)).ok);
      await revokeToken(env.deps, session.userId, record.id, origin);
      assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "revoked" });
    });
    await t.step("rotate → old unknown, new ok", async () => {
      const { secret, record, session } = await withToken(env);
      assert.ok((await resolver.resolve(secret)).ok);
      const next = await rotateToken(env.deps, session, record.id, origin);
      assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "unknown" });
      const found = await resolver.resolve(next.secret);
      assert.ok(found.ok);
      assert.equal(found.token.id, record.id);
    });
    await t.step("edit → the new allowlist and expiry are seen", async () => {
      const { secret, record, session } = await withToken(env, 90);
      assert.ok((await resolver.resolve(secret)).ok);
      await editToken(env.deps, session, record.id, {
        allowed_ips: ["10.0.0.0/8"],
        expires_in_days: 7,
      }, origin);
      const found = await resolver.resolve(secret);
      assert.ok(found.ok);
      assert.deepEqual(found.token.allowed_ips, ["10.0.0.0/8"]);
      assert.equal(Date.parse(found.token.expires_at), env.clock.now() + 7 * DAY);
    });
    await t.step("password change → revoked", async () => {
      const { secret, user } = await withToken(env);
      assert.ok((await resolver.resolve(secret)).ok);
      await revokeAllUserTokens(env.deps, user.id, origin, "password_changed");
      assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "revoked" });
    });
    await assertIndexConsistent(env.kv);
  } finally {
    env.close();
  }
});

Deno.test("resolve() caches unknown secrets briefly; a create with that hash clears it", async () => {
  const env = await testEnv();
  try {
    const { record } = await withToken(env);
    const { resolver, reads } = counted(env);
    const secret = generateSecret();
    assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "unknown" });
    assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "unknown" });
    assert.equal(reads(), 1, "second answer from the negative cache");
    manual(env).advance(5_000);
    await resolver.resolve(secret);
    assert.equal(reads(), 2, "re-read after 5 s");
    // A token created with exactly this secret (as createToken does) must resolve at once.
    const hash = hashSecret(secret);
    const rec: TokenRecord = {
      ...record,
      id: crypto.randomUUID(),
      hash,
      prefix: secretPrefix(secret),
    };
    const op = env.kv.atomic();
    addPut(op, rec, env.clock.now());
    await env.deps.changes.commit(op, [{ kind: "token", hash }]);
    const found = await resolver.resolve(secret);
    assert.ok(found.ok);
    assert.equal(found.token.id, rec.id);
  } finally {
    env.close();
  }
});

Deno.test("resolve() does not cache a read that raced a change", async () => {
  const env = await testEnv();
  try {
    const { secret, record, session } = await withToken(env);
    const c = countingKv(env.kv);
    const resolver = new TokenResolver({ ...env.deps, kv: c.kv });
    const release = c.hold();
    const pending = resolver.resolve(secret);
    await revokeToken(env.deps, session.userId, record.id, origin);
    release();
    await pending; // began before the revoke: either answer is fair
    assert.deepEqual(await resolver.resolve(secret), { ok: false, reason: "revoked" });
  } finally {
    env.close();
  }
});

Deno.test("resolve() on another instance drops a rotated secret at its next feed poll", async () => {
  // The bound "within 100 ms on every instance" is one poll period (lib/start.ts polls every
  // 50 ms); this proves a single poll after the commit is enough, without timing the machine.
  const env = await testEnv({ realClock: true });
  const other = new ChangeFeed(env.kv, env.deps.clock);
  try {
    const { secret, record, session } = await withToken(env);
    const depsB: AppDeps = { ...env.deps, changes: other };
    const resolverB = new TokenResolver(depsB);
    assert.ok((await resolverB.resolve(secret)).ok);
    await rotateToken(env.deps, session, record.id, origin); // committed by instance A
    assert.ok((await resolverB.resolve(secret)).ok, "B still serves its cache before polling");
    await other.poll();
    assert.deepEqual(await resolverB.resolve(secret), { ok: false, reason: "unknown" });
  } finally {
    env.close();
  }
});

Deno.test("resolve() keeps at most `capacity` tokens in memory", async () => {
  const env = await testEnv();
  try {
    const resolver = new TokenResolver(env.deps, { capacity: 3, negativeCapacity: 2 });
    for (let i = 0; i < 5; i++) {
      assert.ok((await resolver.resolve((await withToken(env)).secret)).ok);
    }
    for (let i = 0; i < 5; i++) await resolver.resolve(generateSecret());
    assert.deepEqual(resolver.cacheSize, { known: 3, unknown: 2 });
  } finally {
    env.close();
  }
});

Deno.test("markUsed() writes nothing until flush(), then one batch", async () => {
  const env = await testEnv();
  try {
    const a = await withToken(env);
    const b = await withToken(env);
    const resolver = new TokenResolver(env.deps);
    resolver.markUsed(a.record.id);
    const aAt = env.clock.now();
    manual(env).advance(1000);
    resolver.markUsed(b.record.id);
    resolver.markUsed(b.record.id);
    const bAt = env.clock.now();
    assert.equal((await env.kv.get(tokenLastUsedKey(a.record.id))).value, null);
    await resolver.flush();
    assert.equal((await env.kv.get(tokenLastUsedKey(a.record.id))).value, aAt);
    assert.equal((await env.kv.get(tokenLastUsedKey(b.record.id))).value, bAt);
    await resolver.flush(); // nothing pending: no-op
  } finally {
    env.close();
  }
});

Deno.test("start() flushes last uses on a timer; stop() ends it", async () => {
  const env = await testEnv({ realClock: true });
  try {
    const { record } = await withToken(env);
    const resolver = new TokenResolver(env.deps, { flushIntervalMs: 20 });
    resolver.start();
    resolver.markUsed(record.id);
    const deadline = Date.now() + 2000;
    while ((await env.kv.get(tokenLastUsedKey(record.id))).value === null) {
      assert.ok(Date.now() < deadline, "flushed within 2 s");
      await new Promise((r) => setTimeout(r, 10));
    }
    resolver.stop();
  } finally {
    env.close();
  }
});
